// Reversi (Othello) on 8 x 8: files a-h left to right, ranks 1-8 top to bottom.
import { el, cell, grid } from "../board.js";
import { shortValue, FILES, titled, twoSeats, cellsKey } from "./common.js";

export const info = {
  name: "reversi",
  title: "Reversi",
  blurb: "Outflank your opponent's discs to turn them your colour; most discs wins.",
  picture: `<svg viewBox="0 0 60 60" aria-hidden="true"><rect width="60" height="60" rx="8" fill="#2e7d4f"/>
    <g stroke="#1e5c3a" stroke-width="1.5"><line x1="20" y1="0" x2="20" y2="60"/><line x1="40" y1="0" x2="40" y2="60"/><line x1="0" y1="20" x2="60" y2="20"/><line x1="0" y1="40" x2="60" y2="40"/></g>
    <circle cx="30" cy="30" r="7.5" fill="#111"/><circle cx="10" cy="30" r="7.5" fill="#f4f4f4"/><circle cx="30" cy="10" r="7.5" fill="#f4f4f4"/><circle cx="50" cy="50" r="7.5" fill="#111"/><circle cx="30" cy="50" r="7.5" fill="#111"/></svg>`,
};

export function options() {
  return { fields: [], read: () => ({}) };
}

export const summary = () => "";
export const title = () => titled(info, "");
export const seats = twoSeats;
export const boardKey = cellsKey;
export const analysisWhenOver = true;
export const takebackWhenOver = false;

export const nameOf = (i) => FILES[i % 8] + (Math.floor(i / 8) + 1);
const DISC = { b: "black disc", w: "white disc", "-": "empty" };
// The analysis marks the opening book's near-best moves with ", book" after their value.
const isBook = (value) => !!value && /, book$/.test(value.value || "");
// A small "book" tag at the top of the cell (the page's stylesheet is shared by every game).
const BOOK_STYLE = "position:absolute;left:50%;top:1px;transform:translateX(-50%);font-size:.6rem;"
  + "font-weight:700;color:#1e3a8a;background:rgba(255,255,255,.9);border-radius:3px;padding:0 2px;line-height:1.1;z-index:1";

export function scores(board) {
  return [`Black ${board.discs[0]}`, `White ${board.discs[1]}`];
}

export function render(ctx) {
  const { board, playable, hint } = ctx;
  const legal = new Set(ctx.legal);
  const values = new Map((ctx.analysis || []).map((e) => [e.move, e]));
  const cells = board.cells.map((c, i) => {
    const name = nameOf(i);
    const canPlay = playable && legal.has(name);
    const classes = ["r-cell"];
    if (canPlay) classes.push("legal");
    if (board.last_move === name) classes.push("last");
    if (hint && hint.move === name) classes.push("hint");
    const value = values.get(name);
    let label = `${name}, ${canPlay ? "legal move" : DISC[c]}`;
    if (board.last_move === name) label += ", last move";
    if (hint && hint.move === name) label += `, hint: ${hint.value}`;
    if (value) label += `, value ${value.value.replace(/, book$/, "")}`;
    if (isBook(value)) label += ", book move";
    return cell({
      key: name, label, className: classes.join(" "), playable: canPlay, act: () => ctx.play(name),
      content: [
        c !== "-" ? el("span", { class: "disc " + c + ((board.flipped || []).includes(i) && !ctx.replaying ? " flip" : ""), "aria-hidden": "true" }) : null,
        value ? el("span", { class: "val", "aria-hidden": "true", text: shortValue(value), title: value.value }) : null,
        isBook(value) ? el("span", { class: "book", "aria-hidden": "true", text: "book", title: "opening book move", style: BOOK_STYLE }) : null,
      ],
    });
  });
  let help = "";
  if (board.last_was_pass && !ctx.replaying) help = `${ctx.nameOf(ctx.state.history.length ? ctx.state.history[ctx.state.history.length - 1].seat : 0)} had no legal move and passed.`;
  if (playable && ctx.legal.length === 1 && ctx.legal[0] === "pass") {
    help = "You have no legal move: you pass.";
    if (!ctx.ui.passing) {
      ctx.ui.passing = true;
      setTimeout(() => { ctx.ui.passing = false; ctx.play("pass"); }, 700);
    }
  }
  // The well-known line the game follows (the library's table of opening names), if any.
  const extra = board.opening ? [el("p", { class: "opening", text: `Opening: ${board.opening}` })] : [];
  return {
    extra,
    board: grid({
      name: "reversi", className: "reversi", columns: 8, cells, label: "Reversi board, files a to h, ranks 1 to 8",
      colLabels: [..."abcdefgh"], rowLabels: ["1", "2", "3", "4", "5", "6", "7", "8"],
    }),
    help,
  };
}
