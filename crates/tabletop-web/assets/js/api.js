// The JSON API (docs/API.md) and the seats this browser holds (localStorage).

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

// The round trip of the last request answered, in milliseconds (a move reports half of it as its
// network lag: docs/API.md, "Clocks").
let lastRoundTrip = 0;
export const roundTrip = () => lastRoundTrip;

// One request; `token` (a seat's) travels in the Authorization header, never in the URL.
export async function api(method, path, body, token) {
  let response;
  const sent = performance.now();
  const headers = body ? { "Content-Type": "application/json" } : {};
  if (token) headers.Authorization = `Bearer ${token}`;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch {
    throw new ApiError("The server cannot be reached; trying again shortly.", 0);
  }
  const data = await response.json().catch(() => ({}));
  lastRoundTrip = performance.now() - sent;
  if (!response.ok) throw new ApiError(data.error || response.statusText, response.status);
  return data;
}

const KEY = "tabletop:";

// What this browser keeps of a game: the tokens of the seats it holds (null for the others),
// the game's name and when it was first seen.
export function held(id) {
  try {
    const data = JSON.parse(localStorage.getItem(KEY + id));
    if (Array.isArray(data)) return { tokens: data, game: null, created: 0 };
    if (data && Array.isArray(data.tokens)) return data;
  } catch { /* a damaged entry holds nothing */ }
  return { tokens: [], game: null, created: 0 };
}

export function tokensOf(id) {
  return held(id).tokens;
}

// Remembers `token` for `seat` of game `id`, keeping any other seats already held.
export function keepToken(id, seat, token, game) {
  const entry = held(id);
  while (entry.tokens.length <= seat) entry.tokens.push(null);
  entry.tokens[seat] = token;
  entry.game = entry.game || game || null;
  entry.created = entry.created || Date.now();
  localStorage.setItem(KEY + id, JSON.stringify(entry));
}

export function keepTokens(id, tokens, game) {
  localStorage.setItem(KEY + id, JSON.stringify({ tokens, game, created: Date.now() }));
}

export function forget(id) {
  localStorage.removeItem(KEY + id);
}

// The games this browser holds a seat in, newest first.
export function heldGames() {
  const games = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (!key || !key.startsWith(KEY) || !/^[0-9a-f]{8,64}$/.test(key.slice(KEY.length))) continue;
    const id = key.slice(KEY.length);
    const entry = held(id);
    if (entry.tokens.some(Boolean)) games.push({ id, ...entry });
  }
  return games.sort((a, b) => (b.created || 0) - (a.created || 0));
}
