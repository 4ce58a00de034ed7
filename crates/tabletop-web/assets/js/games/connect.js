// Connect-N: drop pieces into columns (numbered from 1, left to right).
import { el, cell, grid } from "../board.js";
import { shortValue, twoSeats } from "./common.js";

export const info = {
  name: "connect",
  title: "Connect Four",
  blurb: "Drop pieces into columns; four in a row (or three, on the small board) wins.",
  picture: `<svg viewBox="0 0 60 60" aria-hidden="true"><rect width="60" height="60" rx="8" fill="#0072b2"/>
    ${[0, 1, 2, 3].map((r) => [0, 1, 2, 3].map((c) => `<circle cx="${9 + c * 14}" cy="${9 + r * 14}" r="5.5" fill="${
      (r === 3 && c < 3) || (r === 2 && c === 1) ? "#d55e00" : (r === 3 && c === 3) || (r === 2 && c === 0) || (r === 1 && c === 1) ? "#f0e442" : "#fff"}"/>`).join("")).join("")}</svg>`,
};

export function options(values = {}) {
  const preset = el("select", { id: "connect-preset" },
    el("option", { value: "connect4", text: "Connect Four (7 x 6)" }),
    el("option", { value: "connect4-6x4", text: "Connect Four (6 x 4)" }),
    el("option", { value: "connect3", text: "Connect Three (4 x 3)" }));
  if (values.preset) preset.value = values.preset;
  return { fields: [el("label", {}, "Board ", preset)], read: () => ({ preset: preset.value }) };
}

export const summary = (options) => ({ connect3: "Connect Three", "connect4-6x4": "6 x 4" }[options.preset] || "");

// The preset's own name when it has one ("Connect Three"), else the rule and the size.
export function title(options) {
  if (options.preset === "connect3") return "Connect Three";
  if (options.width) return `Connect ${options.connect || 4} (${options.width} x ${options.height})`;
  return options.preset === "connect4-6x4" ? "Connect Four (6 x 4)" : info.title;
}

export const seats = twoSeats;
export const boardKey = (board) => JSON.stringify(board.rows);
export const analysisWhenOver = true;
export const takebackWhenOver = false;

// Digits drop a piece in that column.
export function key(event, ctx) {
  if (!/^[1-9]$/.test(event.key) || !ctx.playable) return false;
  if (!ctx.legal.includes(event.key)) return false;
  ctx.play(event.key);
  return true;
}

export function render(ctx) {
  const { board, playable, hint } = ctx;
  const legal = new Set(ctx.legal);
  const values = new Map((ctx.analysis || []).map((e) => [e.move, e]));
  const winning = new Set((board.winning_line || []).map(([r, c]) => r * board.width + c));
  const lastColumn = board.last_move ? Number(board.last_move) - 1 : -1;
  const lastRow = lastColumn < 0 ? -1 : board.rows.findIndex((row) => row[lastColumn] !== "");
  // The cell a drop would land in, per column.
  const landing = [];
  for (let c = 0; c < board.width; c++) {
    landing[c] = -1;
    for (let r = board.height - 1; r >= 0; r--) if (board.rows[r][c] === "") { landing[c] = r; break; }
  }
  const cells = [];
  board.rows.forEach((row, r) => row.forEach((piece, c) => {
    const column = String(c + 1);
    const canPlay = playable && legal.has(column);
    const classes = ["c-cell", piece];
    if (winning.has(r * board.width + c)) classes.push("win");
    if (r === lastRow && c === lastColumn) classes.push("last");
    if (canPlay) classes.push("legal");
    const lands = landing[c] === r;
    const hinted = hint && hint.move === column;
    if (hinted && lands) classes.push("hint");
    const value = lands ? values.get(column) : null;
    let label = `column ${column}, row ${board.height - r}, ${piece || "empty"}`;
    if (canPlay) label += " (drop here)";
    if (winning.has(r * board.width + c)) label += ", winning line";
    if (hinted && lands) label += `, hint: ${hint.value}`;
    if (value) label += `, value ${value.value}`;
    cells.push(cell({
      key: `${r},${c}`, label, className: classes.join(" "), playable: canPlay, act: () => ctx.play(column),
      content: [
        piece ? el("span", { class: "piece", "aria-hidden": "true", text: piece }) : null,
        value ? el("span", { class: "val", "aria-hidden": "true", text: shortValue(value), title: value.value }) : null,
      ],
    }));
  }));
  const colLabels = Array.from({ length: board.width }, (_, c) => String(c + 1));
  return {
    board: grid({ name: "connect", className: "connect", columns: board.width, cells, colLabels,
      label: `Connect board, columns 1 to ${board.width}` }),
    help: playable ? `Press a column, or type its number (1-${board.width}).` : "",
  };
}
