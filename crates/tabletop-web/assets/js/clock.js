// Game clocks on the page (docs/API.md, "Clocks"): the time controls offered when a game is
// made, and both clocks counting down between the server's states. The server alone keeps
// time: every state carries `clock` ({control, seats: [{ms, periods}], running, server_now,
// deadline, deadline_kind, ...}); the page only counts down from the moment the state arrived,
// and the next state (a move, a flag) sets it right.
import { el } from "./board.js";

// The presets of the new-game form, by speed: [value, label, speed].
export const PRESETS = [
  ["none", "No clock", "unlimited"],
  ["1+0", "1+0", "bullet"],
  ["3+2", "3+2", "blitz"],
  ["5+3", "5+3", "blitz"],
  ["10+5", "10+5", "rapid"],
  ["15+10", "15+10", "rapid"],
  ["1d", "1 day", "correspondence"],
  ["3d", "3 days", "correspondence"],
];

// Below this a clock shows tenths and warns.
export const LOW_TIME_MS = 10000;

// A clock's time: "1:05:09", "4:59", "9.8" (tenths under ten seconds), "2d 03h" by correspondence.
export function formatClock(ms) {
  if (ms === null || ms === undefined) return "∞";
  ms = Math.max(0, ms);
  const day = 86400000;
  if (ms >= day) {
    const d = Math.floor(ms / day);
    const h = Math.floor((ms % day) / 3600000);
    return `${d}d ${String(h).padStart(2, "0")}h`;
  }
  if (ms < LOW_TIME_MS) return (Math.floor(ms / 100) / 10).toFixed(1);
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

// Seconds in words for screen readers ("9 seconds", "2 minutes").
function inWords(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return s >= 120 ? `${Math.floor(s / 60)} minutes` : `${s} second${s === 1 ? "" : "s"}`;
}

// The clock of a state as the page keeps it: the state's clock and the local moment it arrived.
export function stamp(state) {
  return state && state.clock ? { clock: state.clock, at: performance.now() } : null;
}

// What `seat`'s clock shows now: its time counted down locally when it runs.
export function seatTime(stamped, seat) {
  const c = stamped.clock;
  const s = c.seats[seat];
  if (!s || s.ms === null || s.ms === undefined) return null;
  const over = c.running === seat ? performance.now() - stamped.at : 0;
  return Math.max(0, s.ms - over);
}

// How long until the game's deadline (a flag or an abort), counted down locally.
export function untilDeadline(stamped) {
  const c = stamped.clock;
  if (c.deadline === null || c.deadline === undefined) return null;
  return Math.max(0, c.deadline - c.server_now - (performance.now() - stamped.at));
}

// Draws the clocks into `box` (one per seat, named) and says what a screen reader should know in
// `note` (the first-move countdown) and `alert` (low time, once per seat and turn).
export function drawClocks(box, note, alert, stamped, { names, over, mine, warned }) {
  if (!stamped || !stamped.clock || !stamped.clock.limited) {
    box.replaceChildren();
    box.hidden = true;
    note.textContent = "";
    return;
  }
  box.hidden = false;
  const c = stamped.clock;
  const items = c.seats.map((s, seat) => {
    const ms = seatTime(stamped, seat);
    const running = c.running === seat && !over;
    const low = running && ms !== null && ms < LOW_TIME_MS && c.speed !== "correspondence";
    const periods = s.periods ? ` +${s.periods}×` : "";
    return el("div", {
      class: "clock" + (running ? " running" : "") + (low ? " low" : "") + (mine(seat) ? " mine" : ""),
      "data-seat": String(seat), role: "timer", "aria-label": `${names(seat)}'s clock`,
    }, el("span", { class: "clock-name", text: names(seat) }), el("span", { class: "clock-time", text: formatClock(ms) + periods }));
  });
  box.replaceChildren(...items);
  // The low-time note, said once per turn of each seat.
  const running = c.running;
  if (running !== null && running !== undefined && !over) {
    const ms = seatTime(stamped, running);
    const key = `${running}:${c.server_now - c.seats[running].ms}`;
    if (ms !== null && ms < LOW_TIME_MS && c.speed !== "correspondence" && !warned.has(key)) {
      warned.add(key);
      alert.textContent = `${names(running)}: ${inWords(ms)} left.`;
    }
  }
  // Before the clocks start, a first move not made in time aborts the game.
  const left = untilDeadline(stamped);
  if (!over && c.deadline_kind === "abort" && left !== null) {
    note.textContent = `Clocks start after each side's first move. The game is aborted unless the first move comes within ${formatClock(left)}.`;
  } else if (!over && !c.started) {
    note.textContent = `Clock ${c.control}: it starts after each side's first move.`;
  } else {
    note.textContent = `Clock ${c.control}${c.speed ? ` (${c.speed})` : ""}.`;
  }
}

// A move's time for the move list (`history[].time`: {used_ms, remaining_ms, periods}): what it
// took and the mover's clock after it, "3.2 s, 4:57 left"; "" when the game kept no time.
export function moveTimeText(time) {
  if (!time || typeof time.used_ms !== "number") return "";
  const used = time.used_ms;
  const took = used < 10000 ? `${(Math.floor(used / 100) / 10).toFixed(1)} s`
    : used < 60000 ? `${Math.floor(used / 1000)} s` : formatClock(used);
  if (time.remaining_ms === null || time.remaining_ms === undefined) return took;
  const periods = time.periods ? ` +${time.periods}×` : "";
  return `${took}, ${formatClock(time.remaining_ms)}${periods} left`;
}
