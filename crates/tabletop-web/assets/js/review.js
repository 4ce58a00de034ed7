// The review of a finished game (`GET /api/games/{id}/review`, docs/API.md): the marks of the
// move list (?! inaccuracy, ? mistake, ?? blunder, with their words for screen readers) and a
// graph of the value over the game (SVG) whose points step the board to that position. Names no
// game: the server says the unit and the thresholds.
import { el } from "./board.js";

const SVG = "http://www.w3.org/2000/svg";
const SYMBOL = { inaccuracy: "?!", mistake: "?", blunder: "??" };

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  for (const child of children) if (child) node.append(child);
  return node;
}

// The mark of move `i` (from 0) as an element for the move list, or null.
export function markOf(review, i) {
  if (!review || typeof review !== "object") return null;
  const m = review.moves[i];
  if (!m || !m.mark) return null;
  const words = `${m.mark}${m.loss_text ? ": " + m.loss_text : ""}${m.best ? ", best " + m.best : ""}`;
  return el("span", { class: `mark mark-${m.mark}`, role: "img", "aria-label": words, title: words, text: SYMBOL[m.mark] });
}

// The words of a mark for a move button's accessible name ("" when unmarked).
export function markWords(review, i) {
  const m = review && typeof review === "object" ? review.moves[i] : null;
  return m && m.mark ? `, ${m.mark} (${SYMBOL[m.mark]})${m.best ? ", best " + m.best : ""}` : "";
}

// The review section: a status line while loading, then the summary, the graph and the
// thresholds. `ply` is the position shown; `step(k)` shows the position after k moves.
export function drawReview(box, review, { ply, nameOf, step }) {
  if (!review) { box.replaceChildren(); box.hidden = true; return; }
  box.hidden = false;
  if (review === "loading") { box.replaceChildren(el("p", { class: "note", role: "status", text: "Reviewing every move…" })); return; }
  if (typeof review === "string") { box.replaceChildren(el("p", { class: "error", role: "alert", text: review })); return; }
  const seats = [...new Set(review.moves.map((m) => m.mover))].sort();
  const summary = seats.map((seat) => {
    const count = (k) => review.moves.filter((m) => m.mover === seat && m.mark === k).length;
    const words = (k, one, many) => `${count(k)} ${SYMBOL[k]} ${count(k) === 1 ? one : many}`;
    return `${nameOf(seat)}: ${words("inaccuracy", "inaccuracy", "inaccuracies")}, ${words("mistake", "mistake", "mistakes")}, ${words("blunder", "blunder", "blunders")}`;
  });
  box.replaceChildren(
    el("h2", { text: "Review" }),
    el("p", { class: "note", id: "review-summary", text: summary.join(". ") + "." }),
    graph(review, ply, step),
    el("p", { class: "note", text: `Graph: the value for ${nameOf(0)} after each move (${review.unit}); select a point to see that position. Marks: ${review.thresholds}.` }),
  );
}

// The value over the game: one point per position (after 0..n moves), marked moves coloured.
function graph(review, ply, step) {
  const values = review.values;
  const n = values.length - 1;
  const known = values.filter((v) => v !== null && v !== undefined);
  const top = Math.max(1, ...known.map((v) => Math.abs(v)));
  const W = 600, H = 160, pad = 10;
  const x = (k) => pad + (n === 0 ? 0 : (k * (W - 2 * pad)) / n);
  const y = (v) => H / 2 - (v / top) * (H / 2 - pad);
  const root = svg("svg", { id: "review-graph", class: "review-graph", viewBox: `0 0 ${W} ${H}`, role: "group", "aria-label": "value over the game" });
  root.append(svg("line", { x1: 0, x2: W, y1: H / 2, y2: H / 2, class: "axis" }));
  let path = "";
  values.forEach((v, k) => {
    if (v === null || v === undefined) return;
    path += `${path && values[k - 1] !== null && values[k - 1] !== undefined ? "L" : "M"}${x(k).toFixed(1)},${y(v).toFixed(1)} `;
  });
  root.append(svg("path", { d: path.trim(), class: "line" }));
  values.forEach((v, k) => {
    const move = k > 0 ? review.moves[k - 1] : null;
    const mark = move && move.mark ? move.mark : "";
    const value = v === null || v === undefined ? "unknown" : String(Math.round(v * 100) / 100);
    const label = `${k === 0 ? "Start" : `After move ${k}, ${move ? move.move : ""}`}: ${value}${mark ? `, ${mark} ${SYMBOL[mark]}` : ""}`;
    const point = svg("circle", {
      cx: x(k).toFixed(1), cy: y(v === null || v === undefined ? 0 : v).toFixed(1), r: mark ? 9 : 6,
      class: `point ${mark ? "mark-" + mark : ""} ${k === ply ? "current" : ""}`, tabindex: "0", role: "button",
      "aria-label": label, "data-ply": String(k),
    }, svg("title", {}, document.createTextNode(label)));
    point.addEventListener("click", () => step(k));
    point.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); step(k); } });
    root.append(point);
  });
  return root;
}
