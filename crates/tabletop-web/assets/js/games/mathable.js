// Mathable: place number tokens where a op b = c with two neighbours in a line.
// Columns A.. left to right, rows 1.. top to bottom (the notation's `G7`).
import { el, cell, grid } from "../board.js";
import { shortValue, titled } from "./common.js";

export const info = {
  name: "mathable",
  title: "Mathable",
  blurb: "Crossword arithmetic: place a token that is the sum, difference, product or quotient of its neighbours.",
  picture: `<svg viewBox="0 0 60 60" aria-hidden="true"><rect width="60" height="60" rx="8" fill="#f7f7f2" stroke="#bbb"/>
    <g font-family="system-ui,sans-serif" font-weight="bold" font-size="13" text-anchor="middle">
    <rect x="6" y="22" width="16" height="16" rx="2" fill="#fff3c4" stroke="#888"/><text x="14" y="35">3</text>
    <rect x="22" y="22" width="16" height="16" rx="2" fill="#fff3c4" stroke="#888"/><text x="30" y="35">4</text>
    <rect x="38" y="22" width="16" height="16" rx="2" fill="#fff3c4" stroke="#888" stroke-width="2"/><text x="46" y="35">7</text>
    <text x="30" y="16" font-size="11" fill="#0072b2">+ − × ÷</text></g></svg>`,
};

export function options(values = {}) {
  const preset = el("select", { id: "preset" },
    el("option", { value: "classic", text: "Classic (14 x 14, official rules)" }),
    el("option", { value: "junior", text: "Junior (10 x 10, + and − only)" }),
    el("option", { value: "simple", text: "Simple (no special squares)" }));
  if (values.preset) preset.value = values.preset;
  const players = el("input", { id: "players", type: "number", min: "2", max: "4", value: values.players || "2" });
  return {
    fields: [el("label", {}, "Rules ", preset), el("label", {}, "Players ", players)],
    read: () => ({ preset: preset.value, players: Math.min(4, Math.max(2, Number(players.value) || 2)) }),
    players,
  };
}

export const summary = (options) => `${options.preset || "classic"}, ${options.players || 2} players`;
export const title = (options) => titled(info, summary(options));
// Two to four players, as the start page's option says.
export const seats = (options) => options.players || 2;
// The tokens on the board (the racks and the bag are not shown in the history).
export const boardKey = (board) => JSON.stringify(board.cells.map((c) => c.token));
// A finished game offers no analysis.
export const analysisWhenOver = false;
export const takebackWhenOver = false;

const placed = (move) => /^([A-Z]+\d+)=(\d+)$/.exec(String(move));

export function scores(board, state, nameOf) {
  if (!board.scores) return null; // a past position: the scores then are not kept
  return [...board.scores.slice(0, state.seats.length).map((s, i) => `${nameOf(i)} ${s}`), `Bag ${board.bag}`];
}

const MARKS = { "+": "plus square", "-": "minus square", "*": "times square", "x": "times square", "/": "divide square", "2x": "double score", "3x": "triple score" };

export function render(ctx) {
  const { board, playable, ui, hint, state } = ctx;
  const n = board.size;
  const mine = ctx.viewSeat !== null && ctx.viewSeat !== undefined && Array.isArray(board.racks[ctx.viewSeat]) ? board.racks[ctx.viewSeat] : null;
  const placements = playable ? board.placements : [];
  // A placement is a pair (cell, token): whichever is chosen first, the other completes it.
  if (ui.token !== null && ui.token !== undefined && (!mine || mine[ui.token] === undefined)) ui.token = null;
  if (!ui.swap) ui.swap = new Set();
  if (!playable) { ui.cell = null; ui.token = null; ui.swapping = false; ui.swap.clear(); }
  const chosenValue = ui.token !== null && mine ? mine[ui.token] : null;
  const fitsCell = new Map(); // cell -> points, for the chosen token
  for (const p of placements) if (p.token === chosenValue) fitsCell.set(p.cell, p.points);
  const fitsToken = new Map(); // token value -> points, for the chosen cell
  for (const p of placements) if (p.cell === ui.cell) fitsToken.set(p.token, p.points);
  const anyFit = new Set(placements.map((p) => p.cell));
  const recent = new Set(board.recent || []);
  const hintCell = hint && placed(hint.move) ? placed(hint.move)[1] : null;
  // Analysis: each square shows the best value of a placement there.
  const values = new Map();
  for (const entry of ctx.analysis || []) {
    const m = placed(entry.move);
    if (m && !values.has(m[1])) values.set(m[1], entry);
  }
  const place = (cellName, token) => { ui.cell = null; ui.token = null; ctx.play(`${cellName}=${token}`); };
  const cells = board.cells.map((c) => {
    const classes = ["m-cell"];
    const target = fitsCell.has(c.cell);
    if (c.token !== null) classes.push("token");
    if (recent.has(c.cell)) classes.push("recent");
    if (target) classes.push("target");
    if (ui.cell === c.cell) classes.push("chosen");
    if (hintCell === c.cell) classes.push("hint");
    if (c.mark) classes.push("mark");
    const canPlay = playable && c.token === null && anyFit.has(c.cell);
    let label = `${c.cell}, ${c.token !== null ? "token " + c.token : c.mark ? MARKS[c.mark] || "square " + c.mark : "empty"}`;
    if (target) label += `, ${chosenValue} fits for ${fitsCell.get(c.cell)} points`;
    if (ui.cell === c.cell) label += ", chosen";
    if (hintCell === c.cell) label += `, hint: ${hint.move.split("=")[1]} for ${hint.value}`;
    const value = values.get(c.cell);
    if (value) label += `, best: ${value.move.split("=")[1]}, ${value.value}`;
    const text = c.token !== null ? String(c.token) : target ? `+${fitsCell.get(c.cell)}` : c.mark || "";
    return cell({
      key: c.cell, label, className: classes.join(" "), playable: canPlay,
      content: [el("span", { "aria-hidden": "true", text }),
        value ? el("span", { class: "val", "aria-hidden": "true", text: shortValue(value), title: `${value.move}: ${value.value}` }) : null],
      act: () => {
        // A tapped cell is highlighted first; the placement happens on a second tap (or
        // when a fitting token is then chosen), so a slip on a small screen costs nothing.
        if (ui.cell === c.cell && target) return place(c.cell, chosenValue);
        ui.cell = ui.cell === c.cell ? null : c.cell;
        ctx.rerender();
      },
    });
  });
  const letters = board.cells.slice(0, n).map((c) => /^[A-Z]+/.exec(c.cell)[0]);
  const numbers = Array.from({ length: n }, (_, r) => /\d+$/.exec(board.cells[r * n].cell)[0]);
  const boardEl = el("div", { class: "m-scroll" },
    grid({ name: "mathable", className: "mathable", columns: n, cells, minCell: matchMedia("(max-width: 36rem)").matches ? "36px" : "26px", colLabels: letters, rowLabels: numbers,
      label: `Mathable board, columns ${letters[0]} to ${letters[n - 1]}, rows ${numbers[0]} to ${numbers[n - 1]}` }));

  const extra = [];
  if (mine) {
    const rack = el("div", { class: "rack", role: "group", "aria-label": "your rack" });
    mine.forEach((token, i) => {
      const fits = fitsToken.has(token);
      const pressed = ui.swapping ? ui.swap.has(i) : ui.token === i;
      const b = el("button", {
        type: "button", class: "token" + (fits ? " fits" : "") + (hint && hint.move.endsWith("=" + token) ? " hint" : ""),
        text: String(token), "aria-pressed": String(pressed),
        "aria-label": `token ${token}${fits ? `, fits ${ui.cell} for ${fitsToken.get(token)} points` : ""}`,
        disabled: !playable,
        onclick: () => {
          if (ui.swapping) { if (ui.swap.has(i)) ui.swap.delete(i); else ui.swap.add(i); return ctx.rerender(); }
          if (ui.cell && fits) return place(ui.cell, token);
          ui.token = ui.token === i ? null : i;
          ctx.rerender();
        },
      });
      rack.append(b);
    });
    extra.push(rack);
  }
  if (ctx.seated && !state.status.over) {
    const action = (label, onclick, enabled, id) => el("button", { type: "button", id, text: label, disabled: !playable || !enabled, onclick });
    const swapLabel = ui.swapping ? (ui.swap.size ? `Swap ${ui.swap.size} chosen` : "Cancel swap") : "Swap tokens…";
    extra.push(el("div", { class: "controls actions" },
      action("End turn", () => ctx.play("end"), ctx.legal.includes("end"), "end-turn"),
      action("Draw extra token", () => ctx.play("draw"), board.extra_draw, "draw"),
      action(swapLabel, () => {
        if (!ui.swapping) { ui.swapping = true; ui.token = null; ui.cell = null; return ctx.rerender(); }
        const chosen = [...ui.swap].map((i) => mine[i]);
        ui.swapping = false; ui.swap.clear();
        if (chosen.length) ctx.play("swap=" + chosen.join(",")); else ctx.rerender();
      }, board.can_exchange, "swap"),
      action("Terminate game…", () => ctx.terminate(), ctx.legal.includes("terminate") || ctx.legal.length > 0, "terminate"),
    ));
  }
  // What the squares' marks mean, and a cue on a narrow screen that the board scrolls.
  extra.push(el("p", { class: "note m-legend" },
    el("span", { class: "m-swipe", text: "The board scrolls sideways: swipe it to see every column. " }),
    "2x, 3x: the token's points are doubled or tripled. +, -, x, /: a token there must be the sum, difference, product or quotient of its two neighbours in a line. Outlined: the placements of the turn in progress, or of the turn that just ended."));
  let help = "";
  if (playable) {
    if (ui.swapping) help = "Choose the tokens to swap on your rack, then press Swap.";
    else if (ui.cell && chosenValue !== null && fitsCell.has(ui.cell)) help = `Tap ${ui.cell} again to place ${chosenValue} there, or choose another square or token.`;
    else if (ui.cell && fitsToken.size) help = `${ui.cell} chosen: pick a highlighted token from your rack (or tap ${ui.cell} again to cancel).`;
    else if (ui.cell) help = `Nothing on your rack fits ${ui.cell}.`;
    else if (chosenValue !== null) help = fitsCell.size ? `Token ${chosenValue}: tap a marked square, then tap it again to place.` : `Token ${chosenValue} fits nowhere.`;
    else help = "Choose a token from your rack or a square on the board.";
  }
  return { board: boardEl, extra, help };
}
