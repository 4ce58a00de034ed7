// Shared pieces of every board: elements, a grid of cells with coordinates along its edges,
// and keyboard play (arrow keys move between cells, Enter or Space plays the focused one).

export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key === "html") node.innerHTML = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key in node && typeof value !== "string") node[key] = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) node.append(child);
  return node;
}

// A cell: a button named by its coordinate (`d3`, `column 4`, `G7`); `act` runs on a click
// or Enter when the cell is playable. Unplayable cells stay focusable (aria-disabled) so the
// arrow keys can walk the whole board.
export function cell({ key, label, className = "", content = [], playable = false, act }) {
  const button = el("button", { type: "button", class: "cell " + className, "data-key": key, "aria-label": label }, content);
  if (!playable) button.setAttribute("aria-disabled", "true");
  else button.classList.add("playable");
  button.tabIndex = -1;
  button.addEventListener("click", () => { if (playable && act) act(); });
  return button;
}

const focusMemory = new Map(); // board name -> the key of the cell focused last

// The grids' columns depend on the board's size, so their rules are made here, one per layout,
// in a stylesheet of the page's own (no inline styles).
const layouts = new Set();
let layoutSheet = null;
function layout(columns, minCell, withRows) {
  const name = `${withRows ? "r" : ""}${columns}-${String(minCell).replace(/[^a-z0-9]/gi, "_")}`;
  if (!layouts.has(name)) {
    if (!layoutSheet) {
      layoutSheet = new CSSStyleSheet();
      document.adoptedStyleSheets = [...document.adoptedStyleSheets, layoutSheet];
    }
    layoutSheet.insertRule(`.grid[data-layout="${name}"] { grid-template-columns: ${withRows ? "auto " : ""}repeat(${columns}, minmax(${minCell}, 1fr)); }`);
    layouts.add(name);
  }
  return name;
}

// A grid of `cells` (row by row, `columns` wide) with column labels above and row labels to
// the left (either may be omitted); each cell's column is at least `minCell` wide (a CSS length).
export function grid({ name, className, columns, cells, colLabels, rowLabels, label, minCell = "0" }) {
  const withRows = Array.isArray(rowLabels);
  if (!Number.isInteger(columns) || columns < 1 || !/^\d+(\.\d+)?(px|rem|em)?$/.test(String(minCell))) throw new Error(`a grid of ${columns} columns of ${minCell}`);
  const frame = el("div", {
    class: "grid " + className, role: "group", "aria-label": label, "data-layout": layout(columns, minCell, withRows),
  });
  if (colLabels) {
    if (withRows) frame.append(el("span", { class: "coord corner", "aria-hidden": "true" }));
    for (const text of colLabels) frame.append(el("span", { class: "coord col", "aria-hidden": "true", text }));
  }
  cells.forEach((c, i) => {
    if (withRows && i % columns === 0) frame.append(el("span", { class: "coord row", "aria-hidden": "true", text: rowLabels[i / columns] }));
    frame.append(c);
  });
  // One cell takes the Tab stop: the one focused last, else the first playable one.
  const remembered = cells.find((c) => c.dataset.key === focusMemory.get(name));
  const stop = remembered || cells.find((c) => c.classList.contains("playable")) || cells[0];
  if (stop) stop.tabIndex = 0;
  frame.addEventListener("focusin", (event) => {
    const key = event.target.dataset && event.target.dataset.key;
    if (key === undefined) return;
    focusMemory.set(name, key);
    for (const c of cells) c.tabIndex = c === event.target ? 0 : -1;
  });
  frame.addEventListener("keydown", (event) => {
    const index = cells.indexOf(event.target);
    if (index < 0) return;
    const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -columns, ArrowDown: columns }[event.key];
    if (step === undefined) return;
    event.preventDefault();
    const next = cells[index + step];
    if (next) next.focus();
  });
  return frame;
}

// After a re-render, give focus back to the cell that had it.
export function restoreFocus(container, name, hadFocus) {
  if (!hadFocus) return;
  const key = focusMemory.get(name);
  const target = [...container.querySelectorAll(".cell")].find((c) => c.dataset.key === key);
  if (target) target.focus({ preventScroll: true });
}
