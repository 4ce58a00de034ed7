// Slide: n x n tic-tac-toe in which k squares stay empty; then tiles slide.
import { el, cell, grid } from "../board.js";
import { shortValue, titled, twoSeats, cellsKey } from "./common.js";

export const info = {
  name: "slide",
  title: "Slide",
  blurb: "Tic-tac-toe where a square stays empty: once the board fills, tiles slide.",
  picture: `<svg viewBox="0 0 60 60" aria-hidden="true"><rect width="60" height="60" rx="8" fill="#e8f4e8"/>
    <g stroke="#888" stroke-width="2"><line x1="20" y1="4" x2="20" y2="56"/><line x1="40" y1="4" x2="40" y2="56"/><line x1="4" y1="20" x2="56" y2="20"/><line x1="4" y1="40" x2="56" y2="40"/></g>
    <rect x="5" y="5" width="12" height="12" rx="2" fill="#0072b2"/><rect x="24" y="24" width="12" height="12" rx="2" fill="#0072b2"/>
    <circle cx="50" cy="10" r="6" fill="#e69f00"/><circle cx="10" cy="50" r="6" fill="#e69f00"/><rect x="43" y="43" width="12" height="12" rx="2" fill="#0072b2" opacity=".35"/></svg>`,
};

const TILE = { b: "blue tile", o: "orange tile", g: "empty" };

export function options(values = {}) {
  const size = el("input", { id: "size", type: "number", min: "3", max: "8", value: values.size || "3" });
  const empty = el("input", { id: "empty", type: "number", min: "0", max: "62", value: values.empty ?? "1" });
  return {
    fields: [el("label", {}, "Board size ", size), el("label", {}, "Squares kept empty ", empty)],
    read: () => ({ size: Number(size.value), empty: Number(empty.value) }),
  };
}

export const summary = (options) => `${options.size || 3} x ${options.size || 3}`;
export const title = (options) => titled(info, summary(options));
export const seats = twoSeats;
export const boardKey = cellsKey;
export const analysisWhenOver = true;
export const takebackWhenOver = false;

// Squares a move touches (1-based): "5" -> [5], "3-6" -> [3, 6].
const squaresOf = (move) => String(move).split("-").map(Number).filter((n) => n > 0);

export function render(ctx) {
  const { board, playable, ui, hint } = ctx;
  const n = board.size;
  const legal = ctx.legal;
  const placing = board.phase === "placement";
  const sources = new Set(placing ? [] : legal.map((m) => squaresOf(m)[0]));
  if (!sources.has(ui.selected)) ui.selected = null;
  const targets = new Map(); // square -> move
  for (const mv of legal) {
    const [a, b] = squaresOf(mv);
    if (placing) targets.set(a, mv);
    else if (ui.selected === a) targets.set(b, mv);
  }
  const last = new Set(board.last_move ? squaresOf(board.last_move) : []);
  const win = new Set((board.winning_line || []).map((i) => i + 1));
  const hinted = new Set(hint ? squaresOf(hint.move) : []);
  // Analysis: on a placement square its move's value; in the slide phase each tile shows its
  // best slide, and once a tile is chosen, each target its own.
  const values = new Map();
  if (ctx.analysis) {
    for (const entry of ctx.analysis) {
      const [a, b] = squaresOf(entry.move);
      const square = placing ? a : ui.selected === a ? b : a;
      if (!placing && ui.selected !== null && ui.selected !== a) continue;
      if (!values.has(square)) values.set(square, entry);
    }
  }
  const cells = board.cells.map((letter, i) => {
    const square = i + 1;
    const classes = ["s-cell", letter];
    const isTarget = playable && targets.has(square);
    const isSource = playable && sources.has(square);
    if (isTarget) classes.push("legal");
    if (ui.selected === square) classes.push("selected");
    if (last.has(square)) classes.push("last");
    if (win.has(square)) classes.push("win");
    if (hinted.has(square)) classes.push("hint");
    const value = values.get(square);
    let label = `square ${square}, ${TILE[letter] || letter}`;
    if (win.has(square)) label += ", winning line";
    if (last.has(square)) label += ", last move";
    if (ui.selected === square) label += ", selected";
    if (isTarget) label += placing ? ", place here" : `, slide ${ui.selected} here`;
    else if (isSource) label += ", can slide";
    if (hinted.has(square)) label += `, hint: ${hint.value}`;
    if (value) label += `, value ${value.value}`;
    return cell({
      key: String(square), label, className: classes.join(" "), playable: isTarget || isSource,
      content: [
        el("span", { class: "num", "aria-hidden": "true", text: String(square) }),
        letter !== "g" ? el("span", { class: "tile", "aria-hidden": "true" }) : null,
        value ? el("span", { class: "val", "aria-hidden": "true", text: shortValue(value), title: value.value }) : null,
      ],
      act: () => {
        if (isTarget) { const mv = targets.get(square); ui.selected = null; ctx.play(mv); return; }
        ui.selected = ui.selected === square ? null : square;
        ctx.rerender();
      },
    });
  });
  let help = "";
  if (playable && !placing) help = ui.selected ? `Tile ${ui.selected} chosen: pick an empty square to slide it to.` : "Choose one of your tiles to slide.";
  return {
    board: grid({ name: "slide", className: "slide", columns: n, cells, label: `Slide board, ${n} by ${n}, squares 1 to ${n * n}` }),
    help,
  };
}
