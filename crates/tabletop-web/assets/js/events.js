// The live connection to a game: Server-Sent Events (GET /api/games/{id}/events). A seat's
// stream opens with a single-use ticket (POST /api/games/{id}/ticket with the seat's token), so
// no token ever travels in a URL; every reconnection, after a dropped connection or a server
// restart, asks for a new ticket.
import { api } from "./api.js";

// Calls onState(state) with every newer state (by `version`) and onLink(connected) when the
// connection goes up or down. Returns a function that closes it.
export function follow(id, token, onState, onLink) {
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
        url += `?ticket=${encodeURIComponent(ticket)}`;
      } catch {
        onLink(false);
        again();
        return;
      }
    }
    if (closed) return;
    source = new EventSource(url);
    source.addEventListener("open", () => { failures = 0; onLink(true); });
    source.addEventListener("state", (event) => {
      let state;
      try { state = JSON.parse(event.data); } catch { return; }
      onLink(true);
      onState(state);
    });
    source.addEventListener("error", () => {
      onLink(false);
      // The browser would reconnect with the same URL, whose ticket is spent: reconnect here.
      source.close();
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
