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

function seatName(seat, game) {
  if ((game || current.game) === "slide") return seat === 0 ? "Blue (b)" : "Orange (o)";
  if ((game || current.game) === "reversi") return seat === 0 ? "Black" : "White";
  if ((game || current.game) === "connect") return seat === 0 ? "X" : "O";
  return "Player " + (seat + 1);
}

const SEAT_CHOICES = {
  slide: [["human", "Person"], ["engine", "Computer (engine)"], ["classic:levels=2", "Computer (classic, easy)"], ["random", "Computer (random)"]],
  reversi: [["human", "Person"], ["engine:time=500ms", "Computer (engine)"], ["classic:depth=4", "Computer (classic, easy)"], ["random", "Computer (random)"]],
  connect: [["human", "Person"], ["engine", "Computer (perfect)"], ["connect:level=3", "Computer (level 3)"], ["connect:level=1", "Computer (level 1)"], ["random", "Computer (random)"]],
  mathable: [["human", "Person"], ["engine", "Computer (engine)"], ["greedy", "Computer (greedy)"], ["random", "Computer (random)"]],
};

function render(state) {
  if (!current || current.moves.length !== state.moves.length) $("notice").textContent = "";
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
  $("scores").replaceChildren();
  $("rack-area").replaceChildren();
  if (state.game === "slide") renderSlide(state, playable);
  if (state.game === "mathable") renderMathable(state, playable);
  if (state.game === "reversi") renderReversi(state, playable);
  if (state.game === "connect") renderConnect(state, playable);
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
    if (playable && targets.has(square)) button.classList.add("legal");
    if (selected === square) button.classList.add("selected");
    if (lastSquares.includes(square) && board.last_move) button.classList.add("last");
    button.disabled = !playable || !(targets.has(square) || sources.has(square));
    button.addEventListener("click", () => clickSlide(square, board.phase, targets, sources));
    return button;
  });
  grid.replaceChildren(...cells);
}

const FILES = "abcdefgh";

function renderReversi(state, playable) {
  const board = state.board;
  const grid = $("board");
  grid.className = "reversi";
  grid.style.gridTemplateColumns = "repeat(8, 1fr)";
  $("scores").replaceChildren(
    Object.assign(document.createElement("span"), { textContent: `Black: ${board.discs[0]}` }),
    Object.assign(document.createElement("span"), { textContent: `White: ${board.discs[1]}` }));
  const legal = new Set(state.legal);
  grid.replaceChildren(...board.cells.map((cell, i) => {
    const name = FILES[i % 8] + (Math.floor(i / 8) + 1);
    const button = Object.assign(document.createElement("button"), { type: "button", className: "r-cell" });
    const what = cell === "b" ? "black disc" : cell === "w" ? "white disc" : legal.has(name) && playable ? "legal move" : "empty";
    button.setAttribute("aria-label", `${name}, ${what}`);
    if (cell !== "-") {
      const disc = Object.assign(document.createElement("span"), { className: "disc " + cell, textContent: cell === "b" ? "B" : "W" });
      if (board.flipped.includes(i)) disc.classList.add("flip");
      button.append(disc);
    }
    if (playable && legal.has(name)) button.classList.add("legal");
    if (board.last_move === name) button.classList.add("last");
    button.disabled = !playable || !legal.has(name);
    button.addEventListener("click", () => play(name));
    return button;
  }));
  // A side with no legal placement passes automatically, with a notice.
  if (board.last_was_pass) $("notice").textContent = `${seatName(1 - state.status.to_move)} had no legal move and passed.`;
  if (playable && state.legal.length === 1 && state.legal[0] === "pass") {
    $("notice").textContent = `${seatName(state.status.to_move)} has no legal move and passes.`;
    setTimeout(() => play("pass"), 600);
  }
}

function renderConnect(state, playable) {
  const board = state.board;
  const grid = $("board");
  grid.className = "connect";
  grid.style.gridTemplateColumns = `repeat(${board.width}, 1fr)`;
  const legal = new Set(state.legal);
  const winning = new Set(board.winning_line.map(([r, c]) => r * board.width + c));
  // The top empty cell of the last move's column holds the newest piece: mark it.
  const lastColumn = board.last_move ? Number(board.last_move) - 1 : -1;
  const lastRow = lastColumn < 0 ? -1 : board.rows.findIndex((row) => row[lastColumn] !== "");
  const cells = [];
  board.rows.forEach((row, r) => row.forEach((cell, c) => {
    const column = String(c + 1);
    const button = Object.assign(document.createElement("button"), { type: "button", className: "c-cell " + cell, textContent: cell });
    button.setAttribute("aria-label", `column ${column}, row ${board.height - r}, ${cell || "empty"}${legal.has(column) && playable ? " (drop here)" : ""}`);
    if (winning.has(r * board.width + c)) button.classList.add("win");
    if (r === lastRow && c === lastColumn) button.classList.add("last");
    button.disabled = !playable || !legal.has(column);
    button.addEventListener("click", () => play(column));
    cells.push(button);
  }));
  grid.replaceChildren(...cells);
}

let chosenToken = null;   // Mathable: the rack token chosen to place
let swapMode = false;     // Mathable: choosing tokens to exchange
let swapping = new Set(); // Mathable: rack indexes chosen to exchange

function renderMathable(state, playable) {
  const board = state.board;
  const grid = $("board");
  grid.className = "mathable";
  grid.style.gridTemplateColumns = `repeat(${board.size}, 1fr)`;
  const seat = state.status.to_move;
  $("scores").replaceChildren(...board.scores.slice(0, state.seats.length).map((score, i) => {
    const span = document.createElement("span");
    span.textContent = `${seatName(i)}: ${score}${i === seat ? " ◀" : ""}`;
    return span;
  }), Object.assign(document.createElement("span"), { textContent: `Bag: ${board.bag}` }));
  // Where the chosen rack token fits, and the points each placement scores.
  const points = new Map(chosenToken === null ? [] :
    board.placements.filter((p) => p.token === chosenToken).map((p) => [p.cell, p.points]));
  const targets = new Set(points.keys());
  grid.replaceChildren(...board.cells.map((c) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "m-cell" + (c.token !== null ? " token" : "") + (board.recent.includes(c.cell) ? " recent" : "");
    button.textContent = c.token !== null ? c.token : targets.has(c.cell) ? `+${points.get(c.cell)}` : (c.mark || "");
    const fits = targets.has(c.cell) ? `, ${chosenToken} fits for ${points.get(c.cell)} points` : "";
    button.setAttribute("aria-label", `${c.cell}, ${c.token !== null ? "token " + c.token : c.mark ? "square " + c.mark : "empty"}${fits}`);
    if (targets.has(c.cell)) button.classList.add("target");
    button.disabled = !playable || !targets.has(c.cell);
    button.addEventListener("click", () => { const t = chosenToken; chosenToken = null; play(`${c.cell}=${t}`); });
    return button;
  }));
  const rack = board.racks[seat];
  const area = $("rack-area");
  if (!Array.isArray(rack)) return;
  const rackDiv = Object.assign(document.createElement("div"), { className: "rack" });
  rackDiv.setAttribute("aria-label", "your rack");
  rack.forEach((token, i) => {
    const button = Object.assign(document.createElement("button"), { type: "button", textContent: token });
    button.setAttribute("aria-pressed", String(swapMode ? swapping.has(i) : chosenToken === token));
    button.disabled = !playable;
    button.addEventListener("click", () => {
      if (swapMode) {
        if (swapping.has(i)) swapping.delete(i); else swapping.add(i);
      } else {
        chosenToken = chosenToken === token ? null : token;
      }
      render(current);
    });
    rackDiv.append(button);
  });
  const action = (label, handler, enabled) => {
    const b = Object.assign(document.createElement("button"), { type: "button", textContent: label });
    b.disabled = !playable || !enabled;
    b.addEventListener("click", handler);
    return b;
  };
  const controls = Object.assign(document.createElement("div"), { className: "controls" });
  controls.append(
    action("End turn", () => play("end"), state.legal.includes("end")),
    action("Draw extra token", () => play("draw"), board.extra_draw),
    action(swapMode ? `Swap ${swapping.size} chosen` : "Swap tokens…", () => {
      if (!swapMode) {
        swapMode = true;
        chosenToken = null;
        $("message").textContent = "Choose the tokens to swap on your rack, then press Swap.";
        return render(current);
      }
      const chosen = [...swapping].map((i) => rack[i]);
      swapMode = false;
      swapping = new Set();
      if (chosen.length) play("swap=" + chosen.join(",")); else render(current);
    }, board.can_exchange),
    action("Terminate game", () => play("terminate"), true),
  );
  area.append(rackDiv, controls);
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
  const seatsFor = () => {
    const game = $("game").value;
    const count = game === "mathable" ? Math.min(4, Math.max(2, Number($("players").value) || 2)) : 2;
    $("slide-options").hidden = game !== "slide";
    $("mathable-options").hidden = game !== "mathable";
    $("connect-options").hidden = game !== "connect";
    $("seats").replaceChildren(...Array.from({ length: count }, (_, i) => {
      const label = document.createElement("label");
      label.append(seatName(i, game) + (i === 0 ? " (moves first) " : " "));
      const select = Object.assign(document.createElement("select"), { id: "seat" + i });
      for (const [value, text] of SEAT_CHOICES[game]) select.append(new Option(text, value));
      select.value = i === 0 ? "human" : "engine";
      label.append(select);
      return label;
    }));
  };
  $("game").addEventListener("change", seatsFor);
  $("players").addEventListener("change", seatsFor);
  seatsFor();
  $("new-game").addEventListener("submit", async (event) => {
    event.preventDefault();
    const game = $("game").value;
    const options = game === "slide" ? { size: Number($("size").value), empty: Number($("empty").value) }
      : game === "mathable" ? { preset: $("preset").value, players: Number($("players").value) }
      : game === "connect" ? { preset: $("connect-preset").value } : {};
    const seats = [...$("seats").querySelectorAll("select")].map((s) => s.value);
    try {
      const created = await api("POST", "/api/games", { game, options, seats });
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
