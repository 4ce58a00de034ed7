// tabletop's page: the start page at `/`, a game at `/game/{id}`. Talks to the JSON API
// (docs/API.md). It names no game: the games come from the server (`GET /api/catalog`), and
// each game's page module is loaded when needed by the name the catalog gives it (`module`):
// the game's own (js/games/<name>.js, with its stylesheet js/games/<name>.css), or a generic
// one such as js/games/grid.js, which draws any grid game from the catalog entry and the
// board JSON; js/games/common.js documents what every game module provides.
//
// Live: one EventSource per page (js/events.js); every state carries a `version`, and the page
// keeps the newest. History stepping after a game: the server gives the public board after any
// move (`GET /api/games/{id}/boards/{ply}`; the rules stay in the library), kept in
// `page.boards`; the browser tests compare those boards with every position the page received
// live (`replayMismatches`).
import { api, held, tokensOf, keepToken, keepTokens, heldGames, forget, roundTrip } from "./api.js";
import { PRESETS, drawClocks, stamp, formatClock, moveTimeText } from "./clock.js";
import { follow } from "./events.js";
import { el, restoreFocus } from "./board.js";
import { REQUIRED } from "./games/common.js";
import { drawReview, markOf, markWords } from "./review.js";
import { seekFields, seekText } from "./seeks.js";

const GAMES = {}; // name -> the game's module, once loaded
const loading = new Map(); // name -> the promise of its module
const failedLoads = new Map(); // name -> how many times fetching its module failed
const $ = (id) => document.getElementById(id);

// The game's stylesheet, added once; resolves when it has loaded (or failed: the board is then
// drawn unstyled rather than not at all).
function loadStyle(name) {
  const href = new URL(`./games/${name}.css`, import.meta.url).href;
  if ([...document.styleSheets].some((sheet) => sheet.href === href)) return Promise.resolve();
  return new Promise((resolve) => {
    const link = el("link", { rel: "stylesheet", href, "data-game": name });
    link.addEventListener("load", resolve, { once: true });
    link.addEventListener("error", resolve, { once: true });
    document.head.append(link);
  });
}

// The server's catalog of games (`GET /api/catalog`), fetched once (again after a failure).
let catalogAnswer = null;
function catalog() {
  if (!catalogAnswer) {
    catalogAnswer = api("GET", "/api/catalog").then(({ games }) => {
      for (const entry of games) for (const [spec, label] of entry.computers || []) computerLabels.set(entry.name + " " + spec, label);
      return games;
    });
    catalogAnswer.catch(() => { catalogAnswer = null; });
  }
  return catalogAnswer;
}

// The module of the game `name` (and its stylesheet): the one its catalog entry names (its own
// by default); a generic module (one exporting `forGame`) is made into the game's by its entry.
// Rejects, naming the missing piece, when the module lacks part of the interface every game
// provides.
function loadGame(name) {
  if (!/^[a-z][a-z0-9_]*$/.test(name)) return Promise.reject(new Error(`no such game: ${name}`));
  if (!loading.has(name)) {
    const failed = failedLoads.get(name) || 0;
    // Forgotten after a failure, so that the next drawing (the connection coming back) tries again.
    const failure = (error, reason) => {
      console.warn(error);
      loading.delete(name);
      failedLoads.set(name, failed + 1);
      throw new Error(reason);
    };
    const loaded = catalog().catch((error) => failure(error, "the list of games could not be loaded")).then((games) => {
      const entry = games.find((g) => g.name === name);
      if (!entry) throw new Error(`this server does not offer ${name}`);
      const file = entry.module || name;
      if (!/^[a-z][a-z0-9_]*$/.test(file)) throw new Error(`no such page module: ${file}`);
      // The browser remembers a failed module fetch under its URL, so a try after a failure (the
      // connection dropped while the page was loading) asks under a new URL.
      const imported = import(`./games/${file}.js${failed ? `?attempt=${failed}` : ""}`)
        .catch((error) => failure(error, `its page module js/games/${file}.js could not be loaded`));
      return Promise.all([imported, loadStyle(file)]).then(([module]) => {
        const game = typeof module.forGame === "function" ? module.forGame(entry) : module;
        const missing = REQUIRED.filter((piece) => game[piece] === undefined);
        if (missing.length) throw new Error(`js/games/${file}.js lacks ${missing.join(", ")}`);
        GAMES[name] = game;
        return game;
      });
    });
    loading.set(name, loaded);
  }
  return loading.get(name);
}

// The games this server offers (its catalog), each with its page module loaded, in the
// catalog's order. A game whose module cannot be loaded is left out and reported.
async function loadCatalog() {
  const games = await catalog();
  const problems = [];
  const loaded = await Promise.all(games.map((entry) => loadGame(entry.name).then(
    (module) => ({ entry, module }),
    (error) => { problems.push(`${entry.title} cannot be offered: ${error.message}.`); return null; })));
  $("start-error").textContent = problems.join(" ");
  return loaded.filter(Boolean);
}

// The computer players offered for a game: the server's catalog lists them with their labels
// (the same ten levels in every game, the engine at full strength, random moves); failing
// that, the server's own kinds by name.
function computersOf({ entry }) {
  if (entry.computers && entry.computers.length) return entry.computers;
  return entry.players.map((p) => p.name).filter((n) => n !== "human").map((kind) => [kind, kind]);
}

// The labels of the computers the catalog lists, by game and spec, for naming a game's players
// ("computer: Club (level 5)").
const computerLabels = new Map();

// Fills `computerLabels` when a game is opened without the start page (an invite, a link).
async function loadComputerLabels() {
  if (computerLabels.size) return;
  try {
    await catalog();
  } catch (error) {
    // Without the catalog a computer is named "computer" alone; nothing else depends on it.
  }
}

// ---- a confirmation dialog (Resign, Terminate) ----

function confirmDialog(message, okLabel) {
  const dialog = $("confirm");
  $("confirm-text").textContent = message;
  $("confirm-ok").textContent = okLabel;
  return new Promise((resolve) => {
    dialog.returnValue = "";
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true });
    dialog.showModal();
  });
}

async function copy(text, button) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // Without clipboard access (plain http on another host), select the text for a manual copy.
    const field = button.previousElementSibling;
    if (field && field.select) field.select();
  }
  const before = button.textContent;
  button.textContent = "Copied";
  setTimeout(() => { button.textContent = before; }, 1500);
}

function linkRow(label, url, id) {
  const field = el("input", { type: "text", readonly: true, value: url, "aria-label": label, class: "link", id });
  return el("div", { class: "link-row" },
    el("span", { class: "link-label", text: label }),
    el("span", { class: "link-box" }, field,
      el("button", { type: "button", text: "Copy", "aria-label": "Copy: " + label, onclick: (e) => copy(url, e.currentTarget) })));
}

// ---- the start page ----

const OPPONENTS = [
  ["computer", "The computer", "Starts at once."],
  ["friend", "A friend", "You get a link to send them."],
  ["anyone", "Anyone on this server", "Listed in the lobby until someone joins."],
  ["screen", "Someone at this screen", "Take turns on this device."],
];

async function showStart() {
  document.title = "tabletop: board games";
  $("start").hidden = false;
  const form = $("new-game");
  let offered = [];
  try {
    offered = await loadCatalog();
  } catch (error) {
    $("start-error").textContent = error.message;
  }
  const byName = new Map(offered.map((g) => [g.entry.name, g]));
  const gameChoice = $("game-choice");
  gameChoice.replaceChildren(...offered.map(({ entry, module: { info } }, i) => el("label", { class: "game-card" },
    el("input", { type: "radio", name: "game", value: entry.name, checked: i === 0, id: "game-" + entry.name }),
    el("span", { class: "pic", html: info.picture }),
    el("span", { class: "game-text" }, el("strong", { text: info.title || entry.title }), el("span", { class: "blurb", text: info.blurb || entry.about })))));
  $("opponent-choice").replaceChildren(...OPPONENTS.map(([value, title, note], i) => el("label", { class: "opponent" },
    el("input", { type: "radio", name: "opponent", value, checked: i === 0, id: "opponent-" + value }),
    el("span", {}, el("strong", { text: title }), " ", el("span", { class: "note", text: note })))));
  // The clock: presets by speed and a custom control (the server reads and checks it).
  $("clock-presets").replaceChildren(...PRESETS.map(([value, label, speed]) => el("label", { class: "clock-preset" },
    el("input", { type: "radio", name: "clock", value, id: "clock-" + value.replace(/[^a-z0-9]/gi, "_"), checked: value === "none", "aria-label": value === "none" ? "No clock" : `${label} (${speed})` }),
    el("span", {}, label, value === "none" ? "" : el("span", { class: "speed", text: speed })))));
  let clockTouched = false;
  form.addEventListener("change", (event) => {
    if (event.target.name === "clock") { clockTouched = true; $("clock-custom").value = ""; }
  });
  // A custom control replaces the presets: none stays marked.
  $("clock-custom").addEventListener("input", () => {
    clockTouched = true;
    if ($("clock-custom").value.trim()) for (const radio of form.querySelectorAll("input[name=clock]")) radio.checked = false;
  });
  let options = null;
  const update = () => {
    const chosen = byName.get(form.elements.game.value);
    if (!chosen) return;
    const game = chosen.module;
    const opponent = form.elements.opponent.value;
    const strength = $("strength");
    const computers = computersOf(chosen);
    const keep = strength.dataset.game === chosen.entry.name ? strength.value : null;
    strength.replaceChildren(...computers.map(([spec, label]) => el("option", { value: spec, text: label })));
    // The server's default (the terminal's too) is chosen at first.
    const preferred = chosen.entry.default_computer;
    const first = computers.some(([spec]) => spec === preferred) ? preferred : computers[0] && computers[0][0];
    strength.value = keep || first;
    strength.dataset.game = chosen.entry.name;
    $("strength-row").hidden = opponent !== "computer";
    $("hints-row").hidden = opponent === "computer";
    // A lobby game always has a clock; games with friends or the computer may have none.
    const lobby = opponent === "anyone";
    const none = form.querySelector('input[name=clock][value="none"]');
    none.disabled = lobby;
    if (lobby && none.checked) form.querySelector('input[name=clock][value="5+3"]').checked = true;
    if (!lobby && !clockTouched) none.checked = true;
    $("clock-help").textContent = lobby
      ? "Games in the lobby always have a clock. Minutes + seconds added per move (5+3); byo-yomi 10+30x5; days per move 2d."
      : "Minutes + seconds added per move (5+3); byo-yomi 10+30x5; days per move 2d. Clocks start after each side's first move.";
    options = game.options();
    $("game-options").replaceChildren(...options.fields);
    $("options-box").hidden = options.fields.length === 0;
  };
  form.addEventListener("change", (event) => { if (event.target.name === "game" || event.target.name === "opponent") update(); });
  update();
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    $("start-error").textContent = "";
    if (!options) return;
    const game = form.elements.game.value;
    const opponent = form.elements.opponent.value;
    const opts = options.read();
    const count = GAMES[game].seats(opts);
    const other = { computer: $("strength").value, friend: "human", anyone: "open", screen: "human" }[opponent];
    const seats = ["human", ...Array(count - 1).fill(other)];
    const hints = opponent === "computer" ? false : $("hints").checked;
    const custom = $("clock-custom").value.trim();
    const checkedClock = form.querySelector("input[name=clock]:checked");
    // Nothing chosen: the server's default (none, or 5+3 in the lobby).
    const clock = custom || (checkedClock ? checkedClock.value : undefined);
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      const created = await api("POST", "/api/games", { game, options: opts, seats, hints, clock, ...seekFields(opponent) });
      const creator = created.tokens.findIndex(Boolean);
      if (opponent === "screen") {
        keepTokens(created.id, created.tokens, game);
      } else {
        // The other people's tokens leave this browser only in their invite links.
        keepToken(created.id, creator, created.tokens[creator], game);
        if (opponent === "friend") {
          const entry = held(created.id);
          entry.invites = created.invites.filter((i) => i.seat !== creator).map((i) => ({ seat: i.seat, name: i.name, path: i.path, url: i.url }));
          entry.watch = created.watch.url || created.watch.path;
          localStorage.setItem("tabletop:" + created.id, JSON.stringify(entry));
        }
      }
      location.assign(`/game/${created.id}`);
    } catch (error) {
      $("start-error").textContent = error.message;
      button.disabled = false;
    }
  });
  showLobby();
  showMyGames();
  // The lobby changes as people come and go: keep it current while the page is in view.
  setInterval(() => { if (!document.hidden) showLobby(); }, 10000);
}

// A game's title with its options ("Slide (3 x 3)"), by its module; a game whose module is not
// loaded (no longer offered) goes by its name.
function gameTitle(game, options) {
  return GAMES[game] ? GAMES[game].title(options) : game;
}

async function showLobby() {
  const list = $("lobby");
  try {
    const { games } = await api("GET", "/api/lobby");
    const mine = new Set(heldGames().map((g) => g.id));
    const items = games.map((g) => {
      const waiting = g.players.filter((p) => p.kind !== "open").map((p) => p.name).join(", ");
      const seat = g.players.find((p) => p.seat === g.open_seats[0]);
      const what = gameTitle(g.game, g.options || {}) + (g.clock && g.clock !== "none" ? `, clock ${g.clock}` : "") + seekText(g);
      const li = el("li", {}, el("span", { text: `${what}: ${waiting} waiting for an opponent; you would play ${seat ? seat.name : "the open seat"}.` }));
      if (mine.has(g.id)) li.append(" ", el("a", { href: `/game/${g.id}`, text: "your game" }));
      else li.append(" ", el("button", {
        type: "button", text: "Join", "aria-label": `Join ${what} as ${seat ? seat.name : "the open seat"}`,
        onclick: async (e) => {
          e.currentTarget.disabled = true;
          try {
            const joined = await api("POST", `/api/games/${g.id}/join`, {});
            keepToken(g.id, joined.seat, joined.token, g.game);
            location.assign(`/game/${g.id}`);
          } catch (error) {
            $("lobby-error").textContent = error.message;
            showLobby();
          }
        },
      }));
      return li;
    });
    list.replaceChildren(...items);
    $("lobby-empty").hidden = items.length > 0;
  } catch (error) {
    $("lobby-error").textContent = error.message;
  }
}

async function showMyGames() {
  const games = heldGames().slice(0, 20);
  $("my-games-section").hidden = games.length === 0;
  const rows = await Promise.all(games.map(async (g) => {
    const token = g.tokens.find(Boolean);
    try {
      const state = await api("GET", `/api/games/${g.id}`, undefined, token);
      const opponents = state.players.filter((p) => p.seat !== state.your_seat)
        .map((p) => (p.kind === "computer" ? "computer" : p.kind === "open" ? "open seat" : g.tokens[p.seat] ? "this screen" : p.name)).join(", ");
      let status;
      if (state.result) status = state.result.text;
      else if (g.tokens[state.status.to_move]) status = "your move";
      else status = `${state.players[state.status.to_move].name} to move`;
      return el("li", {}, el("a", { href: `/game/${g.id}`, text: `${gameTitle(state.game, state.options || {})} vs ${opponents}` }), ` (move ${state.moves.length}): ${status}`);
    } catch (error) {
      if (error.status === 404) forget(g.id);
      return null;
    }
  }));
  $("my-games").replaceChildren(...rows.filter(Boolean));
  $("my-games-section").hidden = rows.filter(Boolean).length === 0;
}

// ---- a game ----

const page = {
  id: null,
  state: null,       // the newest state received
  tokens: [],        // this browser's tokens, per seat
  streamToken: null, // the token the event stream was opened with
  ui: {},            // the game module's selection (chosen tile, rack token, ...)
  hint: null,        // {move, value, ply}
  analysisOn: false,
  analysis: new Map(), // "plies:ply" -> moves, or an error text
  refining: new Map(), // "plies:ply" -> the refinement: {step, last, open, depth, refinable, running, error}
  review: null,      // after the game: null, "loading", an error text, or the review (docs/API.md)
  step: null,        // after the game: the ply shown, or null for the end
  seen: new Map(),   // ply -> board received live (checks the stepping boards in tests)
  boards: new Map(), // ply -> past board from the server (history stepping)
  wantedStep: null,  // the step asked for while its board is on its way
  linked: null,      // the event stream: up (true), lost (false), not yet opened (null)
  moduleError: null, // the message shown while the game's module could not be loaded
  stateLive: false,  // whether `state` came from the event stream (or from an answer)
  answers: 0,        // answers received to what the page sent (for the browser tests)
  busy: false,
  clock: null,       // the newest state's clock and when it arrived (js/clock.js)
  warned: new Set(), // the low-time notes said
};
window.tabletop = page; // for the browser tests and the curious
// What a live state's arrival does to the page (for the browser tests).
page.redraw = () => render();

// The board after `ply` moves, from the server (history stepping), kept for the next time.
async function loadBoard(ply) {
  if (!page.boards.has(ply)) {
    const { board } = await api("GET", `/api/games/${page.id}/boards/${ply}`);
    page.boards.set(ply, board);
  }
  return page.boards.get(ply);
}

// Shows the position after `ply` moves once its board has come from the server (rapid clicks
// count from the last one asked for, and only the last one asked for is shown).
async function showStep(ply) {
  page.wantedStep = ply;
  try {
    if (ply < page.state.moves.length) await loadBoard(ply);
  } catch (error) {
    $("message").textContent = error.message;
  }
  if (page.wantedStep !== ply) return;
  page.wantedStep = null;
  page.step = ply;
  render();
  if (page.analysisOn) loadAnalysis();
}

// The plies whose stepping board differs from the position the server sent live: empty when
// stepping shows the positions played.
page.replayMismatches = async () => {
  const s = page.state;
  const key = (b) => String(GAMES[s.game].boardKey(b));
  const wrong = [];
  for (const [n, json] of page.seen) {
    if (n < s.moves.length && key(await loadBoard(n)) !== key(JSON.parse(json))) wrong.push(n);
  }
  return wrong;
};

const module = () => GAMES[page.state.game];
const nameOf = (seat) => (page.state.players[seat] ? page.state.players[seat].name : `seat ${seat}`);
const moverToken = () => {
  const s = page.state && page.state.status.to_move;
  return s === null || s === undefined ? null : page.tokens[s] || null;
};
const anyToken = () => page.tokens.find(Boolean) || null;
const mySeats = () => page.tokens.map((t, i) => (t ? i : -1)).filter((i) => i >= 0);
const people = () => page.state.players.filter((p) => p.kind !== "computer").length;
// Every person's seat held by this browser: a game at one screen, where nobody else answers.
const atThisScreen = () => page.state.players.filter((p) => p.kind !== "computer").every((p) => !!page.tokens[p.seat]);

function accept(state, live = false) {
  if (!state || (page.state && state.id !== page.state.id)) return;
  if (page.state && state.version < page.state.version) return;
  // States of one version differ only in what is not stored (presence, thinking), and the event
  // stream brings every such change in order, while an answer to a request may have been made
  // before the stream's latest state and arrive after it. So while the stream is up, an answer
  // never replaces the stream's state of the same version seen from the same seat.
  if (!live && page.linked === true && page.stateLive && page.state.version === state.version && page.state.your_seat === state.your_seat) return;
  page.stateLive = live;
  const plyChanged = !page.state || page.state.moves.length !== state.moves.length;
  page.state = state;
  page.clock = stamp(state);
  page.claimAt = state.claim ? performance.now() + state.claim.wait_ms : null;
  // Positions after a take-back point are gone.
  for (const n of page.seen.keys()) if (n > state.moves.length) page.seen.delete(n);
  if (!state.status.over) page.seen.set(state.moves.length, JSON.stringify(state.board));
  if (plyChanged) {
    // Say the newest move for screen readers (the board changes silently).
    const newest = state.history[state.history.length - 1];
    if (newest) $("announce").textContent = `${state.players[newest.seat] ? state.players[newest.seat].name : ""} played ${newest.move}.`;
    page.ui = { ...page.ui, selected: null, cell: null, token: null };
    page.hint = null;
    page.review = null;
    $("message").textContent = "";
  }
  if (!state.status.over) page.step = null;
  // This browser may hold several seats (a game at one screen): see the game as the seat to move.
  const want = moverToken();
  if (want && state.your_seat !== state.status.to_move) {
    api("GET", `/api/games/${page.id}`, undefined, want).then(accept, () => {});
  }
  render();
  if (page.analysisOn) loadAnalysis();
}

// What could not be sent while the server was out of reach, sent again when the connection
// returns (a move carries the ply it was made at: if the game moved on meanwhile, the server
// refuses it and the page shows the current state).
const UNREACHABLE = "The server cannot be reached: this will be sent again when the connection returns.";

async function send(path, body) {
  $("message").textContent = "";
  try {
    accept(await api("POST", `/api/games/${page.id}/${path}`, body));
    page.answers += 1;
    return true;
  } catch (error) {
    page.answers += 1;
    if (error.status === 0) {
      page.pending = { path, body };
      $("message").textContent = UNREACHABLE;
      return false;
    }
    $("message").textContent = error.message;
    if (error.status === 409 || error.status === 422) refresh();
    return false;
  }
}

function play(move) {
  // The lag this browser measured (half its last round trip): the server gives back what its
  // quota allows (docs/API.md, "Clocks").
  const lag = Math.min(1000, Math.round(roundTrip() / 2));
  return send("moves", { move, token: moverToken(), ply: page.state.moves.length, lag_ms: lag });
}

// The clocks, counted down between states, and the claim against an opponent who left.
function renderClocks() {
  const s = page.state;
  if (!s) return;
  drawClocks($("clocks"), $("clock-note"), $("clock-alert"), page.clock, {
    names: nameOf, over: s.status.over, mine: (seat) => !!page.tokens[seat], warned: page.warned,
  });
  const claim = $("claim");
  // (At one screen this browser holds the absent seat too: nobody to claim against.)
  const claimer = s.claim && !s.status.over && !page.tokens[s.claim.seat]
    ? mySeats().find((seat) => seat !== s.claim.seat && !s.players[seat].resigned) : undefined;
  if (claimer === undefined) {
    claim.replaceChildren();
    claim.hidden = true;
    return;
  }
  claim.hidden = false;
  const wait = Math.max(0, page.claimAt - performance.now());
  const name = nameOf(s.claim.seat);
  const label = s.claim.abort ? "Abort the game" : "Claim the win";
  let button = $("claim-win");
  if (!button) {
    button = el("button", { type: "button", id: "claim-win", onclick: () => send("claim-win", { token: page.tokens[claimer] }) });
    claim.replaceChildren(el("p", { id: "claim-text" }), button);
  }
  const text = wait > 0
    ? `${name} has left the game. If they do not come back, you may ${s.claim.abort ? "abort it" : "claim the win"} in ${formatClock(wait)}.`
    : `${name} has left the game. You may ${s.claim.abort ? "abort it (too few moves for a result)" : "claim the win"}.`;
  if ($("claim-text").textContent !== text) $("claim-text").textContent = text;
  button.textContent = label;
  button.disabled = wait > 0;
}
setInterval(() => { if (page.state && !document.hidden) renderClocks(); }, 200);

async function refresh() {
  const token = moverToken() || anyToken();
  try { accept(await api("GET", `/api/games/${page.id}`, undefined, token)); }
  catch (error) { $("message").textContent = error.message; }
}

// The review of the finished game, asked once (the server computes it once per game).
async function loadReview() {
  if (!page.state || !page.state.status.over || page.review === "loading") return;
  page.review = "loading";
  render();
  try {
    page.review = await api("GET", `/api/games/${page.id}/review`);
  } catch (error) {
    page.review = error.status === 503 || error.status === 429 ? "The server is busy: try Review again in a moment." : error.message;
  }
  render();
}

function analysisPly() {
  const s = page.state;
  if (s.status.over) return page.step === null ? s.moves.length : page.step;
  return s.moves.length;
}

function analysisAllowed() {
  const s = page.state;
  if (s.status.over) return !!(module() && module().analysisWhenOver);
  return !!s.hints && !!moverToken();
}

// The key of the position the analysis is shown for: the plies played and the ply shown.
const analysisKey = () => `${page.state.moves.length}:${analysisPly()}`;
// Does the page still show the analysis of `key` (analysis on, the same position)?
const showing = (key) => page.analysisOn && analysisAllowed() && analysisKey() === key;

// Shows the analysis of the position on the board: asks for it (step 0), or resumes its
// refinement where it stopped when the position was left or analysis turned off.
async function loadAnalysis() {
  if (!analysisAllowed()) return;
  const key = analysisKey();
  if (!page.analysis.has(key)) {
    page.analysis.set(key, "loading");
    render();
    return analyse(key, analysisPly(), 0);
  }
  const r = page.refining.get(key);
  if (r && r.refinable && !r.running) return analyse(key, analysisPly(), r.step + 1);
}

// Refinement steps retried after a busy answer (503, 429, no connection), waiting longer each time.
const REFINE_RETRIES = 3;

// Asks for step `step` of the analysis of `key` (docs/API.md), then for the next step in the
// background while the server says a further step can still refine it (moves open) and the
// page still shows this position with analysis on. Each answer replaces the values shown; an
// answer for a position no longer shown is kept for when it is shown again, never drawn over
// another position.
async function analyse(key, ply, step) {
  const r = page.refining.get(key) || { step: -1 };
  if (r.running) return;
  page.refining.set(key, Object.assign(r, { running: true, error: null }));
  for (let retries = 0; ;) {
    if (step > 0) render();
    const s = page.state;
    // After the game, a player's token lets the server refine (watchers get step 0 only).
    const token = s.status.over ? anyToken() : moverToken();
    const body = s.status.over ? { ply, step } : { token, step };
    if (s.status.over && token) body.token = token;
    try {
      const answer = await api("POST", `/api/games/${page.id}/analysis`, body);
      page.analysis.set(key, answer.moves || []);
      Object.assign(r, {
        step: answer.step ?? step, last: answer.last_step ?? step, open: (answer.open || []).length,
        depth: answer.depth ?? null, refinable: !!answer.refinable,
      });
      // Each step's open moves, for the browser tests and the curious.
      (r.history ||= []).push({ step: r.step, open: r.open, depth: r.depth });
      if (!r.refinable) break;
      step += 1;
      retries = 0;
    } catch (error) {
      const busy = error.status === 503 || error.status === 429 || error.status === 0;
      if (busy && retries < REFINE_RETRIES && showing(key)) {
        // Busy: the same step again, a little later (the values shown stay).
        retries += 1;
        render();
        await new Promise((resolve) => setTimeout(resolve, 2000 * retries));
        if (!showing(key)) break;
        continue;
      }
      if (step === 0) {
        page.analysis.set(key, error.status === 422 ? "Analysis is not available for this game yet." : error.message);
        // Asked afresh the next time the position is shown.
        if (busy) setTimeout(() => { page.analysis.delete(key); page.refining.delete(key); render(); loadAnalysis(); }, 3000);
      } else {
        Object.assign(r, { refinable: false, error: error.message });
      }
      break;
    }
    if (!showing(key)) break; // resumed by loadAnalysis when this position is shown again
    render();
  }
  r.running = false;
  if (showing(key)) render();
}

function currentAnalysis() {
  if (!page.analysisOn || !analysisAllowed()) return null;
  const entry = page.analysis.get(analysisKey());
  return entry === undefined ? "loading" : entry;
}

const moveCount = (n) => `${n} move${n === 1 ? "" : "s"}`;

// The refinement of the analysis shown, in words: "Refining… (2 moves open)", "All values
// exact.", or why it stopped with moves still open; empty when there is nothing to say.
function refineText() {
  const a = currentAnalysis();
  const r = page.analysisOn && analysisAllowed() ? page.refining.get(analysisKey()) : null;
  if (!r || r.step < 0 || !Array.isArray(a) || a.length === 0) return "";
  if (r.open === 0) return "All values exact.";
  if (r.depth === null) return ""; // values no search gives (nothing to refine)
  if (r.running) return `Refining… (${moveCount(r.open)} open, depth ${r.depth})`;
  if (r.error) return `Refining stopped: ${r.error} (${moveCount(r.open)} open, depth ${r.depth}).`;
  if (r.refinable) return `Refining paused (${moveCount(r.open)} open, depth ${r.depth}).`;
  if (r.step >= r.last) return `As exact as this server's time allows: ${moveCount(r.open)} open (estimates at depth ${r.depth}).`;
  return `${moveCount(r.open)} open (estimates at depth ${r.depth}).`;
}

function statusText(s) {
  if (s.status.over) return "The game is over.";
  const seat = s.status.to_move;
  const player = s.players[seat];
  const mine = !!page.tokens[seat];
  if (s.proposal) {
    const waiting = s.proposal.waiting_for.filter((w) => !page.tokens[w]).map(nameOf);
    if (waiting.length) return `Waiting for ${waiting.join(" and ")} to answer the ${s.proposal.kind === "takeback" ? "takeback request" : "proposal to end the game"}.`;
  }
  if (s.thinking || player.kind === "computer") return `${player.name} (computer) is thinking…`;
  if (player.kind === "open") return `Waiting for someone to take ${player.name}'s seat.`;
  if (mine) return mySeats().length > 1 ? `${player.name} to move.` : `Your move (${player.name}).`;
  return `Waiting for ${player.name} to move${player.connected || page.linked === false ? "" : " (not connected)"}.`;
}

// A press and its release must reach the same control: a live state arriving between them
// would redraw the controls, and the release landing on the new button loses the click (a
// browser test under load lost an "End turn" so). A redraw asked for during a press
// waits until just after the release and its click (or a second, for a press held on).
const press = { down: false, pending: false, timer: null };
function pressEnded() {
  if (!press.down) return;
  press.down = false;
  clearTimeout(press.timer);
  if (press.pending) {
    press.pending = false;
    // After the click the release brings, which is dispatched in the same task.
    setTimeout(render, 0);
  }
}
document.addEventListener("pointerdown", () => {
  press.down = true;
  clearTimeout(press.timer);
  press.timer = setTimeout(pressEnded, 1000);
}, true);
for (const type of ["pointerup", "pointercancel"]) document.addEventListener(type, pressEnded, true);

function render() {
  if (press.down) {
    press.pending = true;
    return;
  }
  const s = page.state;
  if (!s) return;
  const game = module();
  // Shown even before the game's module is here: its loading may be what the drop interrupted.
  $("link-state").textContent = page.linked === false ? "Reconnecting…" : "";
  $("status").textContent = s.status.over ? "" : statusText(s);
  $("status").hidden = s.status.over;
  if (!game) {
    // The game's module comes by name the first time its state arrives; draw once it is here.
    loadGame(s.game).then(
      () => {
        if (page.moduleError && $("message").textContent === page.moduleError) $("message").textContent = "";
        page.moduleError = null;
        render();
      },
      (error) => {
        $("message").textContent = page.moduleError = error.message;
        // A fetch that failed is tried again, less often each time (a module lacking part of the
        // interface stays failed: it is still in `loading`).
        const failed = failedLoads.get(s.game) || 0;
        if (!loading.has(s.game) && failed < 8) setTimeout(render, 500 * 2 ** Math.min(failed, 4));
      });
    return;
  }
  const over = s.status.over;
  const stepping = over && page.step !== null && page.step < s.moves.length;
  const ply = stepping ? page.step : s.moves.length;
  // A past board not yet fetched: show the last position until it comes.
  const board = stepping ? page.boards.get(ply) || s.board : s.board;
  if (stepping && !page.boards.has(ply)) loadBoard(ply).then(render, (error) => { $("message").textContent = error.message; });
  const seat = s.status.to_move;
  const playable = !over && !!moverToken() && !s.thinking && !page.busy && s.players[seat].kind === "human" && !s.proposal;
  const viewSeat = s.your_seat;
  const hadFocus = $("board").contains(document.activeElement);
  document.title = `${game.info.title}: ${over ? "over" : statusText(s)} · tabletop`;

  $("game-title").textContent = gameTitle(s.game, s.options || {});
  // The players, who is to move, who is connected.
  const scoreList = game.scores ? game.scores(board, s, nameOf) : null;
  $("players").replaceChildren(...s.players.map((p) => {
    const you = page.tokens[p.seat] ? (mySeats().length > 1 ? " (this screen)" : " (you)") : "";
    // A computer is named by the start page's label for its spec when it has one ("Club (level 5)").
    const label = p.kind === "computer" && computerLabels.get(s.game + " " + p.spec);
    const known = label ? [p.spec, label] : null;
    const presence = page.linked === false ? "status unknown" : p.connected ? "online" : "offline";
    const kind = p.kind === "computer" ? (known ? `computer: ${known[1]}` : "computer") : p.kind === "open" ? "open seat" : you ? "" : presence;
    const li = el("li", { class: "player" + (seat === p.seat && !over ? " to-move" : "") + (p.resigned ? " resigned" : "") },
      el("span", { class: "swatch seat" + p.seat + " " + s.game + (game.styleClass ? " " + game.styleClass : ""), "aria-hidden": "true" }),
      el("strong", { text: p.name + you }),
      // The account's name, linked to its page, and its rating change once a rated game ended.
      p.player ? el("a", { class: "account", href: `/player/${encodeURIComponent(p.player)}`, text: p.player }) : null,
      p.rating_change ? el("span", { class: "rating-change", text: ratingChangeText(p.rating_change) }) : null,
      // A bot account's seat is marked, and so is a challenge's seat waiting for its bot.
      p.bot ? el("span", { class: "presence bot", text: `bot ${p.player || ""}`.trim() }) : null,
      p.reserved_for ? el("span", { class: "presence", text: `waiting for the bot ${p.reserved_for}` }) : null,
      kind ? el("span", { class: "presence " + (p.kind === "computer" ? "computer" : kind.replace(" ", "-")), text: kind }) : null,
      scoreList && scoreList[p.seat] ? el("span", { class: "score", text: scoreList[p.seat].replace(p.name + " ", "") }) : null,
      p.resigned ? el("span", { class: "presence", text: "resigned" }) : null);
    return li;
  }), ...(scoreList && scoreList.length > s.players.length ? scoreList.slice(s.players.length).map((t) => el("li", { class: "player bag", text: t })) : []));
  renderClocks();
  $("link-state").textContent = page.linked === false ? "Reconnecting…" : "";

  // The result.
  const banner = $("result");
  banner.hidden = !over;
  if (over && s.result) {
    const winners = s.result.winners || [];
    const mine = mySeats();
    let verdict = "";
    if (s.result.ended_by === "aborted") verdict = "Not scored.";
    else if (mine.length === 1) verdict = winners.includes(mine[0]) ? (winners.length > 1 ? "You share the win." : "You won.") : winners.length === 0 ? "A draw." : "You lost.";
    banner.className = "result " + (verdict === "You lost." ? "loss" : verdict.startsWith("You") ? "win" : "neutral");
    banner.replaceChildren(el("strong", { text: s.result.text }), verdict ? el("span", { text: " " + verdict }) : "");
  }

  // A pending proposal.
  const proposal = $("proposal");
  proposal.replaceChildren();
  if (s.proposal && (!over || s.proposal.kind === "rematch")) {
    const what = s.proposal.kind === "rematch" ? (page.tokens[s.proposal.by] ? "Rematch offered…" : `${nameOf(s.proposal.by)} offers a rematch (seats swapped).`)
      : s.proposal.kind === "takeback" ? `${nameOf(s.proposal.by)} asks to take back their last move${s.proposal.plies > 1 ? "s" : ""}.` : `${nameOf(s.proposal.by)} proposes to end the game now (Terminate).`;
    const answerer = s.proposal.waiting_for.find((w) => page.tokens[w]);
    proposal.append(el("p", { text: what }));
    if (answerer !== undefined) {
      const answer = (yes) => send("proposal", { token: page.tokens[answerer], accept: yes });
      proposal.append(el("div", { class: "controls" },
        el("button", { type: "button", id: "accept", text: "Accept", "aria-label": s.proposal.kind === "rematch" ? "Accept the rematch" : "Accept", onclick: () => answer(true) }),
        el("button", { type: "button", id: "decline", text: "Decline", "aria-label": s.proposal.kind === "rematch" ? "Decline the rematch" : "Decline", onclick: () => answer(false) })));
    } else if (page.tokens[s.proposal.by]) {
      proposal.append(el("p", { class: "note", text: `Waiting for ${s.proposal.waiting_for.map(nameOf).join(" and ")} to answer.` }));
    }
  }
  proposal.hidden = proposal.childElementCount === 0;

  // The board.
  const ctx = {
    state: s, board, playable: playable && !stepping, legal: stepping ? [] : s.legal, ui: page.ui, replaying: stepping,
    hint: page.hint && page.hint.ply === s.moves.length && !stepping ? page.hint : null,
    analysis: Array.isArray(currentAnalysis()) ? currentAnalysis() : null,
    viewSeat, seated: mySeats().length > 0, nameOf,
    play: (move) => play(move), rerender: render, terminate,
  };
  const drawn = game.render(ctx);
  $("board").replaceChildren(drawn.board);
  $("board").className = "board-area " + s.game + (game.styleClass ? " " + game.styleClass : "");
  $("extra").replaceChildren(...(drawn.extra || []));
  $("help").textContent = stepping ? `Showing the position after move ${ply} of ${s.moves.length}.` : drawn.help || "";
  restoreFocus($("board"), s.game, hadFocus);

  // The hint and the analysis, in words.
  const hintText = ctx.hint ? `Hint: ${ctx.hint.move} (${ctx.hint.value}), marked on the board.` : "";
  const a = currentAnalysis();
  let analysisText = "";
  if (a === "loading") analysisText = "Analysing…";
  else if (typeof a === "string") analysisText = a;
  else if (Array.isArray(a)) analysisText = a.length ? "Analysis (best first): " + a.slice(0, 8).map((m) => `${m.move} ${m.value}`).join("; ") + (a.length > 8 ? "; …" : "") : "No legal move to analyse.";
  $("advice").textContent = [hintText, analysisText].filter(Boolean).join(" ");
  $("refine-status").textContent = refineText();

  // The controls.
  const seated = mySeats().length > 0;
  const versusPeople = people() > 1;
  const undo = $("undo");
  const undoOver = over && !game.takebackWhenOver;
  undo.hidden = !seated || undoOver;
  undo.textContent = versusPeople && !atThisScreen() ? "Ask to take back" : "Undo";
  const lastMove = s.history[s.history.length - 1];
  // Between people only one's own last move can be taken back.
  // The server says which seats could take back now (a Mathable draw or ended turn cannot be).
  const mayTakeBack = !Array.isArray(s.takeback_seats) || s.takeback_seats.some((seat) => !!page.tokens[seat]);
  undo.disabled = undoOver || s.moves.length === 0 || !!s.proposal || (s.thinking && !versusPeople) ||
    (versusPeople && !(lastMove && page.tokens[lastMove.seat])) || (!over && !mayTakeBack);
  $("hint").hidden = !seated || over;
  $("hint").disabled = !playable || !s.hints;
  $("hint").title = s.hints ? "" : versusPeople ? "Hints are off in this game between people." : "";
  const analysis = $("analysis");
  analysis.hidden = over ? !game.analysisWhenOver || s.moves.length === 0 : !seated;
  analysis.disabled = !analysisAllowed();
  analysis.title = analysisAllowed() ? "" : over ? "" : s.hints_allowed === false && versusPeople ? "Analysis is off in this game between people." : "Analysis is for the player to move.";
  analysis.setAttribute("aria-pressed", String(page.analysisOn));
  analysis.textContent = page.analysisOn ? "Analysis: on" : "Analysis";
  $("resign").hidden = !seated || over;
  renderRematch(over, seated);
  $("resign").disabled = over || s.players.every((p) => !page.tokens[p.seat] || p.resigned);

  // Stepping through a finished game.
  const stepper = $("stepper");
  stepper.hidden = !over || s.moves.length === 0;
  $("step-pos").textContent = `Move ${ply} of ${s.moves.length}`;
  $("step-first").disabled = $("step-back").disabled = ply === 0;
  $("step-forward").disabled = $("step-last").disabled = ply >= s.moves.length;

  // The move list, saying who played each move.
  const list = $("moves");
  const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
  list.replaceChildren(...s.history.map((h, i) => {
    const text = `${h.seat === null || h.seat === undefined ? "" : nameOf(h.seat) + ": "}${h.move}`;
    // The move's time and the mover's clock after it, where the game kept them.
    const took = moveTimeText(h.time);
    const li = el("li", { class: i === ply - 1 ? "current" : "" });
    if (over) li.append(el("button", { type: "button", class: "move", text, "aria-label": `Show the position after move ${i + 1}, ${text}${took ? ` (${took})` : ""}${markWords(page.review, i)}`, onclick: () => showStep(i + 1) }));
    else li.textContent = text;
    if (took) li.append(el("span", { class: "move-time", "data-ply": String(i), text: took }));
    const mark = over ? markOf(page.review, i) : null;
    if (mark) li.append(mark);
    return li;
  }));
  if (atBottom) list.scrollTop = list.scrollHeight;

  // The review of a finished game.
  const reviewButton = $("review");
  reviewButton.hidden = !over || s.moves.length === 0;
  reviewButton.disabled = page.review === "loading" || (page.review !== null && typeof page.review === "object");
  drawReview($("review-box"), over ? page.review : null, { ply, nameOf, step: showStep });

  renderInvites();
}

// A rating change as the players' list shows it: "1500 → 1662 (+162)".
function ratingChangeText(change) {
  const diff = change.change > 0 ? `+${change.change}` : change.change < 0 ? `\u2212${-change.change}` : "\u00b10";
  return `${change.before} \u2192 ${change.after}${change.provisional ? "?" : ""} (${diff})`;
}

// After a game between people: the Rematch button for a seated player (docs/API.md,
// "Rematch"); once everyone accepted, each browser follows the new game, keeping its tokens for
// the seats they move to (seat s plays seat s + 1: the server moved each token's hash so, and no
// token travels), and a watcher gets a link.
function renderRematch(over, seated) {
  const s = page.state;
  const button = $("rematch");
  const between = s.players.every((p) => p.kind === "human") && people() > 1;
  button.hidden = !over || !seated || !between || !!s.rematch || s.result?.ended_by === "aborted";
  button.disabled = !!s.proposal || page.busy;
  const box = $("rematch-link");
  if (!s.rematch) {
    box.replaceChildren();
    return;
  }
  const seats = mySeats();
  if (seats.length && !page.followed) {
    page.followed = true;
    const n = s.players.length;
    for (const seat of seats) keepToken(s.rematch.id, (seat + 1) % n, page.tokens[seat], s.game);
    location.assign(s.rematch.path);
    return;
  }
  box.replaceChildren(el("p", { class: "note" }, "A rematch has started: ", el("a", { href: s.rematch.path, text: "watch the new game" }), "."));
}

async function offerRematch() {
  const seat = mySeats()[0];
  if (seat === undefined) return;
  const sent = await send("rematch", { token: page.tokens[seat] });
  // At one screen the others' answers come from this same screen.
  const asked = page.state.proposal;
  if (sent && asked && asked.kind === "rematch" && asked.waiting_for.every((w) => !!page.tokens[w])) {
    for (const other of asked.waiting_for) {
      if (!(await send("proposal", { token: page.tokens[other], accept: true }))) break;
    }
  }
}

function renderInvites() {
  const s = page.state;
  const entry = held(page.id);
  const box = $("invites");
  const parts = [];
  const others = s.players.filter((p) => p.kind !== "computer" && !page.tokens[p.seat]);
  // An invite stays on show until its holder has come and the game is under way (and comes
  // back while they are away, to send it again).
  // A single-use invitation (`invite` is "unused" or "used") is on show until it is used;
  // an older game's link (the seat's token, `invite` null) until its holder has come.
  const waiting = (p) => (p.invite ? p.invite === "unused" : !(p.connected && s.moves.length > 0));
  const waitingForFriend = (entry.invites || []).filter((i) => others.some((p) => p.seat === i.seat && waiting(p)));
  if (waitingForFriend.length && !s.status.over) {
    const single = waitingForFriend.length === 1;
    parts.push(el("h2", { text: single ? "Invite your opponent" : "Invite your opponents" }));
    for (const invite of waitingForFriend) {
      const player = s.players[invite.seat];
      const joined = player.connected ? " (connected)" : "";
      parts.push(linkRow(`Send this to ${single ? "your opponent" : "a friend"}: they play ${invite.name}${joined}`, invite.url || location.origin + invite.path, `invite-${invite.seat}`));
    }
    parts.push(el("p", { class: "note", text: `The first person to open ${single ? "this link" : "a link"} plays that seat (anyone after them watches), so send it only to them. You play ${mySeats().map(nameOf).join(" and ")}.` }));
  }
  const arrived = (entry.invites || []).map((i) => s.players[i.seat]).filter((p) => p && p.invite === "used" && !page.tokens[p.seat]);
  if (arrived.length && s.moves.length === 0 && !s.status.over) {
    parts.push(el("p", { class: "note", text: `${arrived.map((p) => p.name).join(" and ")} opened your invitation and ${arrived.length > 1 ? "hold their seats" : "holds the seat"}.` }));
  }
  // What opening an invite link here did: a watcher told whose seat it is, or the creator told
  // that checking their own link left it for the friend.
  const checked = page.checkedInvite === undefined ? null : s.players[page.checkedInvite];
  const note = checked && checked.invite === "unused"
    ? `This is the invitation you sent for ${checked.name}: opening it here leaves it for them. You play ${mySeats().map(nameOf).join(" and ")}.`
    : page.inviteNote;
  if (note) parts.push(el("p", { class: "note invite-note", role: "status", text: note }));
  if (s.players.some((p) => p.kind === "open") && !s.status.over) {
    parts.push(el("p", { class: "note", text: "Your game is in the lobby: whoever opens the start page on this server can join it." }));
  }
  $("share").replaceChildren(linkRow(people() > 1 ? "To watch (read only, anyone)" : "Share to watch (read only)", entry.watch && /^https?:/.test(entry.watch) ? entry.watch : `${location.origin}/game/${page.id}`, "watch-link"));
  box.replaceChildren(...parts);
}

async function terminate() {
  const between = people() > 1;
  const ok = await confirmDialog(between ? "Propose to end the game now? The others must accept; the scores then stand." : "Ask the computer to end the game now? It agrees when it leads or cannot catch up; the scores then stand.", between ? "Propose" : "Ask");
  if (ok) play("terminate");
}

// Opens an invitation (docs/API.md, "Invitations"): the first opener takes the seat; a later
// one watches, told whose seat it is; a browser that already holds a seat here (the creator
// checking the link it sent) sends its token and keeps its seat, the invitation left unused.
async function openInvitation(id, code) {
  const mine = tokensOf(id).find(Boolean);
  try {
    const answer = await api("POST", `/api/games/${id}/claim`, mine ? { invite: code, token: mine } : { invite: code });
    if (answer.claimed) {
      keepToken(id, answer.seat, answer.token, answer.state.game);
    } else if (answer.invited_seat !== answer.seat) {
      // Said while the invitation waits for its friend (renderInvites).
      page.checkedInvite = answer.invited_seat;
    }
  } catch (error) {
    page.inviteNote = error.status === 0 ? error.message : `${error.message} You are watching.`;
  }
}

async function showGame(id) {
  page.id = id;
  $("play").hidden = false;
  await loadComputerLabels();
  // An invite link carries its seat's token in the fragment: keep it, and take it out of the
  // address bar (and so out of the history and of anything copied from there).
  const fragment = new URLSearchParams(location.hash.slice(1));
  const invitation = fragment.get("invite");
  if (invitation) {
    history.replaceState(null, "", location.pathname + location.search);
    await openInvitation(id, invitation);
  }
  // Links made before invitations were single use carry the seat's token itself.
  const invited = fragment.get("seat");
  if (invited) {
    history.replaceState(null, "", location.pathname + location.search);
    try {
      const state = await api("GET", `/api/games/${id}`, undefined, invited);
      if (state.your_seat !== null && state.your_seat !== undefined) keepToken(id, state.your_seat, invited, state.game);
      else $("message").textContent = "This invite link holds no seat in this game; you are watching.";
    } catch (error) {
      $("message").textContent = error.message;
    }
  }
  // A link to this game pasted into its own tab changes only the fragment, which loads no new
  // page: read it as a new visit.
  window.addEventListener("hashchange", () => { if (/^#(invite|seat)=/.test(location.hash)) location.reload(); });
  page.tokens = tokensOf(id);
  page.streamToken = anyToken();
  $("undo").addEventListener("click", async () => {
    page.ui = {};
    const token = people() > 1 ? (mySeats().find((s) => s !== page.state.status.to_move) ?? anyToken()) : anyToken();
    // Between people the request comes from the seat that moved last (at one screen: the one not to move).
    const last = page.state.history[page.state.history.length - 1];
    const requester = people() > 1 && last && page.tokens[last.seat] ? page.tokens[last.seat] : token;
    const sent = await send("undo", { token: requester });
    // At one screen a takeback request would wait for this same screen: answer it here.
    const asked = page.state.proposal;
    if (sent && asked && asked.kind === "takeback" && asked.waiting_for.every((w) => !!page.tokens[w])) {
      for (const seat of asked.waiting_for) {
        if (!(await send("proposal", { token: page.tokens[seat], accept: true }))) break;
      }
    }
  });
  $("hint").addEventListener("click", async () => {
    const ply = page.state.moves.length;
    $("hint").disabled = true;
    try {
      const hint = await api("POST", `/api/games/${page.id}/hint`, { token: moverToken() });
      page.hint = hint ? { ...hint, ply } : null;
      if (!hint) $("message").textContent = "No hint in this position.";
    } catch (error) {
      $("message").textContent = error.message;
    }
    render();
  });
  $("review").addEventListener("click", loadReview);
  $("rematch").addEventListener("click", offerRematch);
  $("analysis").addEventListener("click", () => {
    page.analysisOn = !page.analysisOn;
    if (page.analysisOn) loadAnalysis();
    render();
  });
  $("resign").addEventListener("click", async () => {
    const s = page.state;
    const seat = mySeats().length > 1 ? s.status.to_move : mySeats()[0];
    const many = s.players.length > 2;
    const ok = await confirmDialog(
      many ? `Resign as ${nameOf(seat)}? You leave the game and rank last; the others play on.` : `Resign as ${nameOf(seat)}? ${mySeats().length > 1 ? nameOf(1 - seat) : "Your opponent"} wins.`, "Resign");
    if (ok) send("resign", { token: page.tokens[seat] });
  });
  const step = (to) => () => {
    const n = page.state.moves.length;
    const now = page.wantedStep ?? (page.step === null ? n : page.step);
    showStep(Math.max(0, Math.min(n, to(now, n))));
  };
  $("step-first").addEventListener("click", step(() => 0));
  $("step-back").addEventListener("click", step((p) => p - 1));
  $("step-forward").addEventListener("click", step((p) => p + 1));
  $("step-last").addEventListener("click", step((p, n) => n));
  document.addEventListener("keydown", (event) => {
    if (!page.state || event.altKey || event.ctrlKey || event.metaKey) return;
    if (["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement.tagName) || $("confirm").open) return;
    const game = module();
    if (!game) return;
    const playable = !page.state.status.over && !!moverToken() && !page.state.thinking && !page.state.proposal;
    if (game.key && game.key(event, { playable, legal: page.state.legal, play })) event.preventDefault();
  });
  await refresh();
  if (!page.state) {
    $("game-title").textContent = "No such game";
    $("status").textContent = "This link does not lead to a game on this server.";
    for (const id of ["undo", "hint", "analysis", "review", "resign"]) $(id).hidden = true;
    return;
  }
  follow(id, page.streamToken, (state) => accept(state, true), (up) => {
    if (page.linked === up) return;
    page.linked = up;
    if (up && $("message").textContent === UNREACHABLE) $("message").textContent = "";
    const pending = up ? page.pending : null;
    page.pending = null;
    if (pending) send(pending.path, pending.body);
    // Presence shown as unknown while the server is out of reach.
    if (page.state) render();
  });
}

const match = /^\/game\/([0-9a-fA-F]+)\/?$/.exec(location.pathname);
const legacy = new URLSearchParams(location.search).get("game");
if (match) showGame(match[1]);
else if (legacy) location.replace(`/game/${legacy}`);
else if (/^\/player\//.test(location.pathname)) { /* a player's page: js/player.js draws it */ }
else showStart();
