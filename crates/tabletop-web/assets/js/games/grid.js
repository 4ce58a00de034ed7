// The generic page module for grid games: any game whose server board is the grid JSON below
// plays on the page with no JavaScript of its own. The catalog (`GET /api/catalog`) names this
// module for every game without one of its own (`"module": "grid"`); the page then calls
// `forGame(entry)` with the game's catalog entry and gets the module interface documented in
// js/games/common.js, built from the entry: its title and blurb, its options form (from
// `entry.options`, the library's option fields) and its number of seats.
//
// The board JSON (the library's grid board):
//   {"rows", "cols",
//    "cells": [..],       row by row from the top row: "" for empty, else the piece's short text
//    "seats": [..],       each seat's piece text in seat order (a cell equal to seats[i] is seat i's)
//    "names": [..],       each cell's coordinate name, which is also the move a click plays there
//                         (when it is among the view's `legal` moves)
//    "col_labels", "row_labels",   the coordinates along the top and the left, top row first
//    "last": [..],        the cells of the last move (highlighted)
//    "line": [..]}        a winning line (highlighted)
// Every cell is a button named by its coordinate and content ("b2, empty", "a1, X"); the arrow
// keys move between cells and Enter or Space plays the focused one (js/board.js).
import { el, cell, grid } from "../board.js";
import { shortValue, titled, cellsKey } from "./common.js";

// The picture on the start page's card: a small grid with two players' marks.
const PICTURE = `<svg viewBox="0 0 60 60" aria-hidden="true"><rect width="60" height="60" rx="8" fill="#f4f1ea"/>
  <g stroke="#8a8170" stroke-width="2" stroke-linecap="round"><line x1="22" y1="8" x2="22" y2="52"/><line x1="38" y1="8" x2="38" y2="52"/><line x1="8" y1="22" x2="52" y2="22"/><line x1="8" y1="38" x2="52" y2="38"/></g>
  <g stroke="#0072b2" stroke-width="3.2" stroke-linecap="round"><line x1="10" y1="10" x2="18" y2="18"/><line x1="18" y1="10" x2="10" y2="18"/><line x1="26" y1="26" x2="34" y2="34"/><line x1="34" y1="26" x2="26" y2="34"/></g>
  <g fill="none" stroke="#d55e00" stroke-width="3.2"><circle cx="46" cy="14" r="4.6"/><circle cx="14" cy="46" r="4.6"/></g></svg>`;

// Boards up to this many columns fit a phone's width (15 on a 390 px screen); wider ones scroll
// sideways inside their own box rather than shrinking cells below a finger's width.
const MIN_CELL = "20px";

// An option field's value from what was typed or chosen: a whole number within its range, or
// one of its choices; the default otherwise.
function fieldValue(field, raw) {
  const kind = field.kind;
  if (kind.type === "integer") {
    const n = Math.round(Number(raw));
    return Number.isFinite(n) && raw !== "" && raw !== undefined && raw !== null ? Math.min(kind.max, Math.max(kind.min, n)) : kind.default;
  }
  const values = kind.choices.map(([value]) => value);
  return values.includes(raw) ? raw : kind.default;
}

// The words for a field's value: the number, or the choice's label.
function valueWords(field, value) {
  if (field.kind.type === "choice") {
    const choice = field.kind.choices.find(([v]) => v === value);
    return choice ? choice[1] : String(value);
  }
  return `${field.label} ${value}`;
}

// The module interface for the game of catalog entry `entry`.
export function forGame(entry) {
  const fields = Array.isArray(entry.options) ? entry.options : [];
  const info = { name: entry.name, title: entry.title, blurb: entry.about, picture: PICTURE };

  function options(values = {}) {
    const inputs = fields.map((field) => {
      const id = `${entry.name}-${field.key}`.replace(/[^a-zA-Z0-9_-]/g, "_");
      const value = fieldValue(field, values[field.key]);
      const input = field.kind.type === "integer"
        ? el("input", { id, type: "number", min: String(field.kind.min), max: String(field.kind.max), step: "1", value: String(value), inputmode: "numeric" })
        : el("select", { id }, field.kind.choices.map(([v, label]) => el("option", { value: v, text: label, selected: v === value })));
      return { field, input };
    });
    return {
      fields: inputs.map(({ field, input }) => el("label", {}, field.label + " ", input)),
      read: () => Object.fromEntries(inputs.map(({ field, input }) => [field.key, fieldValue(field, input.value)])),
    };
  }

  // The options that differ from the defaults, in a few words ("" when all are the defaults).
  function summary(chosen = {}) {
    return fields
      .filter((field) => chosen[field.key] !== undefined && fieldValue(field, chosen[field.key]) !== field.kind.default)
      .map((field) => valueWords(field, fieldValue(field, chosen[field.key])))
      .join(", ");
  }

  // The seats of a game: an option that counts the players says; else the catalog's number.
  function seats(chosen = {}) {
    const counted = fields.find((f) => f.kind.type === "integer" && /^(players|seats)$/.test(f.key));
    if (counted) return fieldValue(counted, chosen[counted.key]);
    return Number(entry.seats) || 2;
  }

  function render(ctx) {
    const { board, playable, hint } = ctx;
    const rows = board.rows;
    const cols = board.cols;
    const legal = new Set(ctx.legal);
    const values = new Map((ctx.analysis || []).map((e) => [e.move, e]));
    const last = new Set(board.last || []);
    const line = new Set(board.line || []);
    const pieces = board.seats || [];
    const shown = pieceWords(pieces);
    const size = cols <= 5 ? "size-s" : cols <= 10 ? "size-m" : "size-l";
    const cells = board.cells.map((piece, i) => {
      const name = board.names[i];
      const seat = piece ? pieces.indexOf(piece) : -1;
      const canPlay = playable && legal.has(name);
      const classes = ["gg-cell"];
      if (piece) classes.push("taken", seat >= 0 ? "seat" + seat : "other");
      if (canPlay) classes.push("legal");
      if (last.has(name)) classes.push("last");
      if (line.has(name)) classes.push("win");
      if (hint && hint.move === name) classes.push("hint");
      const value = values.get(name);
      let label = `${name}, ${piece ? shown(piece) : "empty"}`;
      if (last.has(name)) label += ", last move";
      if (line.has(name)) label += ", winning line";
      if (hint && hint.move === name) label += `, hint: ${hint.value}`;
      if (value) label += `, value ${value.value}`;
      return cell({
        key: name, label, className: classes.join(" "), playable: canPlay, act: () => ctx.play(name),
        content: [
          el("span", { class: "piece", "aria-hidden": "true", text: piece ? shown(piece) : "" }),
          value ? el("span", { class: "val", "aria-hidden": "true", text: shortValue(value), title: value.value }) : null,
        ],
      });
    });
    const colLabels = board.col_labels || null;
    const rowLabels = board.row_labels || null;
    const across = colLabels ? `, columns ${colLabels[0]} to ${colLabels[colLabels.length - 1]}` : "";
    const down = rowLabels ? `, rows ${rowLabels[rowLabels.length - 1]} to ${rowLabels[0]}` : "";
    const frame = grid({
      name: entry.name, className: `gg ${size}`, columns: cols, cells, minCell: MIN_CELL, colLabels, rowLabels,
      label: `${info.title} board, ${rows} by ${cols}${across}${down}`,
    });
    let help = "";
    if (playable) help = "Choose an empty cell to place your piece (arrow keys and Enter work too).";
    return { board: el("div", { class: "gg-scroll " + size }, frame), help };
  }

  return {
    info, options, summary, seats, render,
    title: (chosen) => titled(info, summary(chosen)),
    boardKey: cellsKey,
    analysisWhenOver: true,
    takebackWhenOver: false,
    // The page puts this class on the board's area and the players' swatches (grid.css).
    styleClass: "grid-game",
  };
}

// How a piece is shown and named: in capitals ("X" for "x") when that keeps the seats' pieces
// apart, else as the server writes it.
function pieceWords(pieces) {
  const upper = pieces.map((p) => String(p).toUpperCase());
  const distinct = new Set(upper).size === upper.length;
  return (piece) => (distinct ? String(piece).toUpperCase() : String(piece));
}
