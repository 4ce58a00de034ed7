// Gomoku (free-style): Black (x) and White (o) take turns placing stones on the points of an
// n x n board (7-19, 15 by default); five or more in a row wins. Points are named by column
// letter (a.. left to right) and row number (1.. from the bottom): on 15 x 15 the top-left
// point is a15. The server's board: {size, cells (row by row from the top; "x", "o" or ""),
// last_move, winning_line}; a move is a point's name.
import { el, cell, grid } from "../board.js";
import { shortValue, FILES, titled, twoSeats, cellsKey } from "./common.js";

export const info = {
  name: "gomoku",
  title: "Gomoku",
  blurb: "Place stones in turn on a 15 x 15 board; five or more in a row wins.",
  picture: `<svg viewBox="0 0 60 60" aria-hidden="true"><rect width="60" height="60" rx="8" fill="#dcb35c"/>
    <g stroke="#6b5426" stroke-width="1.2">${[10, 20, 30, 40, 50].map((v) => `<line x1="${v}" y1="4" x2="${v}" y2="56"/><line x1="4" y1="${v}" x2="56" y2="${v}"/>`).join("")}</g>
    ${[[10, 50], [20, 40], [30, 30], [40, 20]].map(([x, y]) => `<circle cx="${x}" cy="${y}" r="4.6" fill="#111"/>`).join("")}
    ${[[20, 30], [30, 40], [40, 30], [30, 20]].map(([x, y]) => `<circle cx="${x}" cy="${y}" r="4.6" fill="#f8f8f4" stroke="#555" stroke-width=".8"/>`).join("")}
    <circle cx="50" cy="10" r="4.6" fill="#111" opacity=".35"/></svg>`,
};

const MIN = 7;
const MAX = 19;
const DEFAULT = 15;
const sizeOf = (options) => Number(options.size) || DEFAULT;

export function options(values = {}) {
  const size = el("input", { id: "gomoku-size", type: "number", min: String(MIN), max: String(MAX), value: String(values.size || DEFAULT) });
  return {
    fields: [el("label", {}, "Board size ", size)],
    read: () => ({ size: Math.min(MAX, Math.max(MIN, Math.round(Number(size.value)) || DEFAULT)) }),
  };
}

export const summary = (options) => `${sizeOf(options)} x ${sizeOf(options)}`;
export const title = (options) => titled(info, summary(options));
export const seats = twoSeats;
export const boardKey = cellsKey;
export const analysisWhenOver = true;
export const takebackWhenOver = false;

const STONE = { x: "black stone", o: "white stone" };

// The name of the point at `index` (row by row from the top) on an n x n board.
export const pointName = (index, n) => FILES[index % n] + (n - Math.floor(index / n));

export function render(ctx) {
  const { board, playable, hint } = ctx;
  const n = board.size;
  const legal = new Set(ctx.legal);
  const values = new Map((ctx.analysis || []).map((e) => [e.move, e]));
  const winning = new Set(board.winning_line || []);
  // The stone the player to move would place, shown faintly under the pointer.
  const mover = ctx.state.status.to_move === 1 ? "o" : "x";
  const cells = board.cells.map((stone, i) => {
    const name = pointName(i, n);
    const row = Math.floor(i / n);
    const column = i % n;
    const canPlay = playable && legal.has(name);
    const classes = ["g-cell"];
    if (row === 0) classes.push("edge-t");
    if (row === n - 1) classes.push("edge-b");
    if (column === 0) classes.push("edge-l");
    if (column === n - 1) classes.push("edge-r");
    if (stone) classes.push(stone);
    if (canPlay) classes.push("legal", "next-" + mover);
    if (board.last_move === name) classes.push("last");
    if (winning.has(name)) classes.push("win");
    if (hint && hint.move === name) classes.push("hint");
    const value = values.get(name);
    let label = `${name}, ${STONE[stone] || "empty"}`;
    if (board.last_move === name) label += ", last move";
    if (winning.has(name)) label += ", winning line";
    if (hint && hint.move === name) label += `, hint: ${hint.value}`;
    if (value) label += `, value ${value.value}`;
    return cell({
      key: name, label, className: classes.join(" "), playable: canPlay, act: () => ctx.play(name),
      content: [
        el("span", { class: "stone", "aria-hidden": "true" }),
        value ? el("span", { class: "val", "aria-hidden": "true", text: shortValue(value), title: value.value }) : null,
      ],
    });
  });
  const letters = [...FILES.slice(0, n)];
  const numbers = Array.from({ length: n }, (_, r) => String(n - r));
  let help = "";
  if (playable) help = "Place a stone on any empty point: five or more in a row wins.";
  return {
    // A wide board scrolls sideways inside its own box on a narrow screen rather than shrinking
    // its points below a finger's width.
    board: el("div", { class: "g-scroll" }, grid({
      name: "gomoku", className: "gomoku", columns: n, cells, minCell: "24px", colLabels: letters, rowLabels: numbers,
      label: `Gomoku board, ${n} by ${n}, columns a to ${letters[n - 1]}, rows 1 to ${n}`,
    })),
    help,
  };
}
