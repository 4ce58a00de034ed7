// The live connection to a game: Server-Sent Events (GET /api/games/{id}/events). A seat's
// stream opens with a single-use ticket (POST /api/games/{id}/ticket with the seat's token), so
// no token ever travels in a URL; every reconnection, after a dropped connection or a server
// restart, asks for a new ticket. A seat's stream answers the server's pings (its lag measure).
import { api } from "./api.js";

// A stream's first state holds the whole move list; each later one only the moves after
// `moves_from` (how many of those already received still stand). Returns the state with its whole
// list put back, or null when it does not follow from what this stream received.
function wholeMoves(state, known) {
  if (state.moves_from === undefined || state.moves_from === null) return state;
  const from = state.moves_from;
  if (!known || known.moves.length < from || known.history.length < from) return null;
  delete state.moves_from;
  state.moves = known.moves.slice(0, from).concat(state.moves || []);
  state.history = known.history.slice(0, from).concat(state.history || []);
  return state;
}

// Calls onState(state) with every newer state (by `version`) and onLink(connected) when the
// connection goes up or down. Returns a function that closes it.
export function follow(id, token, onState, onLink) {
  let known = null;
  let source = null;
  let closed = false;
  let retry = null;
  let failures = 0;
  const again = () => {
    clearTimeout(retry);
    // Soon after a drop, then less often while the server stays away.
    retry = setTimeout(open, Math.min(500 * 2 ** failures, 5000));
    failures += 1;
  };
  const open = async () => {
    if (closed) return;
    let url = `/api/games/${id}/events`;
    if (token) {
      try {
        const { ticket } = await api("POST", `/api/games/${id}/ticket`, { token });
        // `pings`: this page answers the server's pings, which measure its lag (docs/API.md,
        // "Clocks").
        url += `?ticket=${encodeURIComponent(ticket)}&pings=true`;
      } catch {
        onLink(false);
        again();
        return;
      }
    }
    if (closed) return;
    source = new EventSource(url);
    known = null;
    const mine = source;
    source.addEventListener("open", () => { failures = 0; onLink(true); });
    source.addEventListener("state", (event) => {
      let state;
      try { state = JSON.parse(event.data); } catch { return; }
      state = wholeMoves(state, known);
      if (!state) {
        // Out of step with the server: start over with a whole state.
        mine.close();
        if (!closed) open();
        return;
      }
      known = { moves: state.moves, history: state.history };
      onLink(true);
      onState(state);
    });
    // A ping of a seat's stream (games with a real-time clock): answered at once, so the
    // server measures this connection's lag. A failed answer only leaves it unmeasured.
    source.addEventListener("ping", (event) => {
      let ping;
      try { ({ ping } = JSON.parse(event.data)); } catch { return; }
      if (typeof ping !== "string" || !token) return;
      api("POST", `/api/games/${id}/pong`, { token, ping }).catch(() => {});
    });
    source.addEventListener("error", () => {
      // The browser would reconnect with the same URL, whose ticket is spent: reconnect here.
      mine.close();
      // A stream already replaced (out of step) is no news about the connection.
      if (mine !== source) return;
      onLink(false);
      if (!closed) again();
    });
  };
  open();
  return () => {
    closed = true;
    clearTimeout(retry);
    if (source) source.close();
  };
}
