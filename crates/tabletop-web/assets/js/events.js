// The live connection to a game: Server-Sent Events (GET /api/games/{id}/events), which the
// browser reconnects by itself after a dropped connection or a server restart.

// Calls onState(state) with every newer state (by `version`) and onLink(connected) when the
// connection goes up or down. Returns a function that closes it.
export function follow(id, token, onState, onLink) {
  const url = `/api/games/${id}/events` + (token ? `?token=${encodeURIComponent(token)}` : "");
  let source = null;
  let closed = false;
  let retry = null;
  const open = () => {
    source = new EventSource(url);
    source.addEventListener("open", () => onLink(true));
    source.addEventListener("state", (event) => {
      let state;
      try { state = JSON.parse(event.data); } catch { return; }
      onLink(true);
      onState(state);
    });
    source.addEventListener("error", () => {
      onLink(false);
      // EventSource retries by itself while it says CONNECTING; after an answer it cannot use
      // (a 404 or 503 during a restart) it gives up (CLOSED): then try again ourselves.
      if (source.readyState === EventSource.CLOSED && !closed) {
        clearTimeout(retry);
        retry = setTimeout(open, 2000);
      }
    });
  };
  open();
  return () => {
    closed = true;
    clearTimeout(retry);
    if (source) source.close();
  };
}
