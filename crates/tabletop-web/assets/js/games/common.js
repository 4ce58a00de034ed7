// Small helpers the game modules share, and the interface every game's page module provides.
//
// The page names no game: js/app.js lists the games from the server (`GET /api/catalog`) and
// loads the module each catalog entry names (`module`), `js/games/<module>.js`, together with
// its stylesheet `js/games/<module>.css`. That is the game's own module when the page has one
// (`module` = the game's name), else a generic module: js/games/grid.js draws any game whose
// board is the library's grid JSON, so a new grid game needs no JavaScript of its own. A
// generic module exports `forGame(entry)`, which answers the interface below for the game of
// that catalog entry (title, blurb and options form from the entry). A game the catalog does
// not list is never loaded. Every module (or `forGame`'s answer) provides:
//
//   info: {
//     name,             the game's name in the API (`POST /api/games {"game": name}`)
//     title, blurb,     what its card on the start page says
//     picture,          the card's picture: an SVG string (attributes only, no styles)
//     (the computer players offered, their labels and the default come from the catalog:
//     the same ten levels in every game, tabletop::levels::offered_computers)
//   }
//   options(values = {}) -> { fields: [Element], read: () => options }
//                     the start page's board options (with a label each) and the options object
//                     sent on Start; `values` presets them
//   summary(options) -> string   the options in a few words ("3 x 3"; "" for none)
//   title(options) -> string     the game's title with its options, for headings and lists
//                     (`titled(info, summary(options))` unless the game says it better)
//   seats(options) -> number     how many players a game with these options seats
//   boardKey(board) -> string    equal for two boards of the same position, from the server's
//                     board JSON (the tests compare the history boards with those seen live)
//   analysisWhenOver: boolean    whether a finished game can be analysed (else its Analysis
//                     button is hidden once the game is over)
//   takebackWhenOver: boolean    whether the last move can still be taken back once the game is
//                     over (else the Undo button is hidden then)
//   render(ctx) -> { board: Element, extra?: [Element], help?: string }
//                     draws the position; ctx = { state, board, playable, legal, ui (the module's
//                     own selection, kept between renders), hint, analysis, replaying, viewSeat,
//                     seated, nameOf(seat), play(move), rerender(), terminate() }. Every cell is
//                     a button with an accessible name (board.js's `cell`).
//   scores(board, state, nameOf) -> [string] | null   (optional) a score per seat, then extras
//   key(event, ctx) -> boolean   (optional) a keyboard shortcut; true when it was used
//   styleClass: string           (optional) a class the page adds to the board's area and the
//                     players' swatches besides the game's name (a generic module's stylesheet
//                     cannot know the names of the games it draws: grid.js's is `grid-game`)
//
// Its stylesheet holds everything drawn for that game: the board (`.board-area.<name>`, its
// cells) and the players' swatches (`.swatch.<name>.seat0`, ...). No inline styles.

// The exports every game module must have; app.js refuses a module without one, naming it.
export const REQUIRED = ["info", "options", "summary", "title", "seats", "boardKey", "analysisWhenOver", "takebackWhenOver", "render"];

// "Slide" + "3 x 3" -> "Slide (3 x 3)".
export function titled(info, more) {
  return more ? `${info.title} (${more})` : info.title;
}

// For two-player games.
export const twoSeats = () => 2;

// A board whose `cells` say the whole position.
export const cellsKey = (board) => JSON.stringify(board.cells);

// A short mark for a value in words ("win in 7 plies" -> "W7", "+4 discs" -> "+4").
export function shortValue(entry) {
  const text = String(entry.value || "");
  let m = /\bwin\w* in (\d+)/i.exec(text);
  if (m) return "W" + m[1];
  m = /\bl(?:oss|ose)\w* in (\d+)/i.exec(text);
  if (m) return "L" + m[1];
  if (/^draw/i.test(text) || /\bdraw\b/i.test(text)) return "=";
  m = /[+-]?\d+(\.\d+)?/.exec(text);
  if (m) return m[0];
  if (typeof entry.score === "number") return String(entry.score);
  return "?";
}

// "d3" -> 19 (index on the 8 x 8 board, rank 1 at the top).
export const FILES = "abcdefghijklmnopqrstuvwxyz";
