// Finding an opponent on the start page (docs/API.md, "Seeks and quick pairing"): the "Rated"
// checkbox and the rating range of the new-game form, the seek fields of the lobby list, and
// quick pairing (enter a pool by time control, wait for a wave, open the game when paired).
// app.js asks `seekFields` what to add to a new game's body and `seekText` how to describe a
// lobby game; everything else happens here.
import { api, keepToken } from "./api.js";
import { el } from "./board.js";

const $ = (id) => document.getElementById(id);

// The time controls quick pairing offers: [clock, speed].
export const POOL_CLOCKS = [["1+0", "bullet"], ["3+2", "blitz"], ["5+3", "blitz"], ["10+0", "rapid"]];

// Who is logged in (null: nobody), as the server says; account.js tells of changes.
let account = null;

// The new game's `rated` and `rating_range`, for the body of POST /api/games: rated only when
// the box is ticked (and could be); a range only for a game in the lobby with a bound given.
export function seekFields(opponent) {
  const out = {};
  const rated = $("seek-rated");
  if (rated && !rated.disabled && rated.checked) out.rated = true;
  const min = $("seek-min"), max = $("seek-max");
  if (opponent === "anyone" && min && max && (min.value !== "" || max.value !== "")) {
    out.rating_range = [min.value === "" ? 0 : Number(min.value), max.value === "" ? 4000 : Number(max.value)];
  }
  return out;
}

// A lobby game's seek fields as words: ", rated blitz, by ann (1500?), for ratings 1400-1600"
// ("by bot robo (1500?)" for a bot account's).
export function seekText(g) {
  const parts = [];
  if (g.speed && g.speed !== "unlimited") parts.push(`${g.rated ? "rated" : "casual"} ${g.speed}`);
  else if (g.rated) parts.push("rated");
  if (g.creator) parts.push(`by ${g.creator.bot ? "bot " : ""}${g.creator.name} (${g.creator.rating}${g.creator.provisional ? "?" : ""})`);
  if (Array.isArray(g.rating_range)) parts.push(`for ratings ${g.rating_range[0]}–${g.rating_range[1]}`);
  return parts.length ? ", " + parts.join(", ") : "";
}

// The new-game form's seek controls: enabled as the opponent, the clock and the login allow.
function updateForm() {
  const form = $("new-game");
  const box = $("seek-options");
  if (!form || !box) return;
  const opponent = form.elements.opponent ? form.elements.opponent.value : "";
  const custom = $("clock-custom") ? $("clock-custom").value.trim() : "";
  const preset = form.querySelector("input[name=clock]:checked");
  const clock = custom || (preset ? preset.value : "none");
  const people = opponent === "anyone" || opponent === "friend";
  const rated = $("seek-rated");
  rated.disabled = !account || !people || clock === "none";
  if (rated.disabled) rated.checked = false;
  $("seek-rated-note").textContent = !people
    ? "Rated games are between people."
    : !account
      ? "Log in to play rated games."
      : clock === "none" ? "A rated game needs a clock." : "Ratings change at the end (Glicko-2, per game and speed).";
  $("seek-range").hidden = opponent !== "anyone";
}

// Quick pairing: the game to pair in (two-player games), a button per time control, the
// rated box, and while waiting, the entry polled once a second with a Cancel button.
let waiting = null; // {entry, secret, game, timer}

function showWaiting(text) {
  $("pool-waiting").hidden = !text;
  $("pool-status").textContent = text || "";
  for (const button of $("pool-buttons").querySelectorAll("button")) button.disabled = !!text;
}

function paired(answer, game) {
  stopWaiting();
  keepToken(answer.game, answer.seat, answer.token, game);
  showWaiting("Paired: opening the game…");
  location.assign(answer.path || `/game/${answer.game}`);
}

function stopWaiting() {
  if (waiting && waiting.timer) clearTimeout(waiting.timer);
  waiting = null;
}

async function pollEntry() {
  if (!waiting) return;
  const current = waiting;
  try {
    const answer = await api("GET", `/api/pool/${current.entry}`, undefined, current.secret);
    if (waiting !== current) return;
    if (answer.status === "paired") return paired(answer, current.game);
    const next = Math.max(0, Math.ceil((answer.next_wave_ms || 0) / 1000));
    showWaiting(`Looking for an opponent… (${current.label}; next pairing in ${next} s)`);
  } catch (error) {
    if (waiting !== current) return;
    if (error.status === 404) {
      stopWaiting();
      showWaiting("");
      $("pool-error").textContent = "The wait ended (the server forgot the entry). Try again.";
      return;
    }
    $("pool-error").textContent = error.message;
  }
  current.timer = setTimeout(pollEntry, 1000);
}

async function enterPool(game, title, clock) {
  $("pool-error").textContent = "";
  const rated = $("pool-rated");
  const body = { game, clock, rated: !rated.disabled && rated.checked };
  const label = `${title} ${clock}, ${body.rated ? "rated" : "casual"}`;
  showWaiting(`Looking for an opponent… (${label})`);
  try {
    const entered = await api("POST", "/api/pool", body);
    waiting = { entry: entered.entry, secret: entered.secret, game, label, timer: null };
    $("pool-cancel").focus();
    pollEntry();
  } catch (error) {
    showWaiting("");
    $("pool-error").textContent = error.message;
  }
}

async function cancel() {
  const current = waiting;
  stopWaiting();
  showWaiting("");
  if (!current) return;
  try {
    const answer = await api("DELETE", `/api/pool/${current.entry}`, undefined, current.secret);
    // A wave came first: the game is made, and this browser holds its seat.
    if (answer.status === "paired") paired(answer, current.game);
  } catch (error) {
    if (error.status !== 404) $("pool-error").textContent = error.message;
  }
}

async function setUpPool() {
  const box = $("quick");
  if (!box) return;
  let games = [];
  try {
    games = (await api("GET", "/api/catalog")).games.filter((g) => g.seats === 2);
  } catch (error) {
    $("pool-error").textContent = error.message;
  }
  const select = $("pool-game");
  select.replaceChildren(...games.map((g) => el("option", { value: g.name, text: g.title })));
  const titleOf = () => (games.find((g) => g.name === select.value) || {}).title || select.value;
  $("pool-buttons").replaceChildren(...POOL_CLOCKS.map(([clock, speed]) => el("button", {
    type: "button", class: "pool-clock", "aria-label": `Quick pairing: ${clock} (${speed})`,
    onclick: () => enterPool(select.value, titleOf(), clock),
  }, el("strong", { text: clock }), " ", el("span", { class: "speed", text: speed }))));
  $("pool-cancel").addEventListener("click", cancel);
  // Leaving the page leaves the pool (an entry nobody polls is dropped anyway).
  window.addEventListener("pagehide", () => {
    if (waiting) fetch(`/api/pool/${waiting.entry}`, { method: "DELETE", headers: { Authorization: `Bearer ${waiting.secret}` }, keepalive: true });
  });
}

function updatePool() {
  const rated = $("pool-rated");
  if (!rated) return;
  rated.disabled = !account;
  if (!account) rated.checked = false;
  $("pool-rated-note").textContent = account ? "" : "Log in to be paired for rated games.";
}

function setAccount(next) {
  account = next || null;
  if ($("seek-options")) updateForm();
  updatePool();
}

if ($("start") && location.pathname === "/") {
  document.addEventListener("tabletop:account", (event) => setAccount(event.detail));
  const form = $("new-game");
  if (form && $("seek-options")) {
    // After app.js's own handlers (which may choose a clock for the lobby).
    const later = () => setTimeout(updateForm, 0);
    form.addEventListener("change", later);
    form.addEventListener("input", later);
    // app.js draws the opponents once the catalog is in: then the controls are set.
    new MutationObserver(updateForm).observe($("opponent-choice"), { childList: true });
  }
  api("GET", "/api/account").then(setAccount, () => setAccount(null));
  setUpPool();
}
