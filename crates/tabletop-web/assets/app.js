// tabletop's page: a start screen, then one game, talking to the JSON API (docs/API.md).
"use strict";

const $ = (id) => document.getElementById(id);
let current = null;      // the last state from the server
let selected = null;     // Slide: the tile chosen to slide
let pollTimer = null;

const params = new URLSearchParams(location.search);
const gameId = params.get("game");

function tokens(id) {
  try { return JSON.parse(localStorage.getItem("tabletop:" + id)) || []; } catch { return []; }
}

async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body ? { "Content-Type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

// The token of the seat to move, if this browser holds it.
function moverToken() {
  const seat = current && current.status.to_move;
  const mine = tokens(gameId);
  return seat === null || seat === undefined ? null : mine[seat] || null;
}

function anyToken() {
  return tokens(gameId).find(Boolean) || null;
}

function seatName(seat) {
  if (current.game === "slide") return seat === 0 ? "Blue (b)" : "Orange (o)";
  return "Seat " + (seat + 1);
}

function render(state) {
  current = state;
  const status = state.status;
  let text;
  if (status.over) {
    const winners = status.winners || [];
    text = winners.length ? `${winners.map(seatName).join(" and ")} won: ${status.reason}.` : `Draw: ${status.reason}.`;
  } else {
    text = `${seatName(status.to_move)} to move`;
    if (state.thinking) text += " — the computer is thinking…";
    else if (!moverToken()) text += state.seats[status.to_move] === "human" ? " (waiting for that player)" : "";
  }
  $("status").textContent = text;
  $("moves").replaceChildren(...state.moves.map((m) => Object.assign(document.createElement("li"), { textContent: m })));
  const link = `${location.origin}/?game=${state.id}`;
  $("share").href = link;
  $("share").textContent = link;
  const playable = !status.over && !!moverToken() && !state.thinking;
  $("undo").disabled = !anyToken() || status.over || state.moves.length === 0;
  $("hint").disabled = !playable;
  $("resign").disabled = !anyToken() || status.over;
  if (state.game === "slide") renderSlide(state, playable);
  const waiting = !status.over && (state.thinking || state.seats[status.to_move] !== "human");
  clearTimeout(pollTimer);
  if (waiting) pollTimer = setTimeout(refresh, 400);
}

function renderSlide(state, playable) {
  const board = state.board;
  const n = board.size;
  const grid = $("board");
  grid.style.gridTemplateColumns = `repeat(${n}, 1fr)`;
  const lastSquares = (board.last_move || "").split("-").map(Number);
  const targets = new Set();
  for (const mv of state.legal) {
    if (board.phase === "placement") targets.add(Number(mv));
    else if (selected !== null && mv.startsWith(selected + "-")) targets.add(Number(mv.split("-")[1]));
  }
  const sources = new Set(board.phase === "slide" ? state.legal.map((mv) => Number(mv.split("-")[0])) : []);
  const cells = board.cells.map((cell, i) => {
    const square = i + 1;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "cell " + cell;
    button.textContent = cell === "g" ? square : cell.toUpperCase();
    const what = cell === "g" ? "empty" : cell === "b" ? "blue tile" : "orange tile";
    button.setAttribute("aria-label", `square ${square}, ${what}`);
    if (targets.has(square)) button.classList.add("legal");
    if (selected === square) button.classList.add("selected");
    if (lastSquares.includes(square) && board.last_move) button.classList.add("last");
    button.disabled = !playable || !(targets.has(square) || sources.has(square));
    button.addEventListener("click", () => clickSlide(square, board.phase, targets, sources));
    return button;
  });
  grid.replaceChildren(...cells);
}

function clickSlide(square, phase, targets, sources) {
  if (phase === "placement") return play(String(square));
  if (targets.has(square) && selected !== null) {
    const mv = `${selected}-${square}`;
    selected = null;
    return play(mv);
  }
  selected = sources.has(square) && selected !== square ? square : null;
  render(current);
}

async function play(mv) {
  $("message").textContent = "";
  try {
    render(await api("POST", `/api/games/${gameId}/moves`, { move: mv, token: moverToken(), ply: current.moves.length }));
  } catch (error) {
    $("message").textContent = error.message;
    refresh();
  }
}

async function refresh() {
  try {
    const token = moverToken() || anyToken();
    render(await api("GET", `/api/games/${gameId}` + (token ? `?token=${token}` : "")));
  } catch (error) {
    $("status").textContent = error.message;
  }
}

async function showGame() {
  $("play").hidden = false;
  $("undo").addEventListener("click", async () => {
    try { selected = null; render(await api("POST", `/api/games/${gameId}/undo`, { token: anyToken() })); }
    catch (error) { $("message").textContent = error.message; }
  });
  $("hint").addEventListener("click", async () => {
    try {
      const hint = await api("POST", `/api/games/${gameId}/hint`);
      $("message").textContent = hint ? `Hint: ${hint.move} (${hint.value})` : "No hint.";
    } catch (error) { $("message").textContent = error.message; }
  });
  $("resign").addEventListener("click", async () => {
    try { render(await api("POST", `/api/games/${gameId}/resign`, { token: moverToken() || anyToken() })); }
    catch (error) { $("message").textContent = error.message; }
  });
  await refresh();
}

async function showStart() {
  $("start").hidden = false;
  $("new-game").addEventListener("submit", async (event) => {
    event.preventDefault();
    const game = $("game").value;
    const options = { size: Number($("size").value), empty: Number($("empty").value) };
    try {
      const created = await api("POST", "/api/games", { game, options, seats: [$("seat0").value, $("seat1").value] });
      localStorage.setItem("tabletop:" + created.id, JSON.stringify(created.tokens));
      location.search = `?game=${created.id}`;
    } catch (error) {
      $("start-error").textContent = error.message;
    }
  });
  try {
    const { games } = await api("GET", "/api/games");
    $("recent").replaceChildren(...games.slice(0, 10).map((g) => {
      const li = document.createElement("li");
      li.append(Object.assign(document.createElement("a"), { href: `/?game=${g.id}`, textContent: `${g.game} — ${g.moves} moves` }));
      return li;
    }));
  } catch { /* the list is a convenience */ }
}

if (gameId) showGame(); else showStart();
