// A player's page at `/player/{name}` (docs/API.md, "Players"): the name, each rating (game
// and speed, rating ± deviation, "?" while provisional, games), a rating graph per game and
// speed (inline SVG from the ratings' `history`), the recent games with their results and
// rating changes, and the export links. Everything comes from `GET /api/players/{name}`; the
// page names no game (their titles come from the catalog).
import { api } from "./api.js";
import { el } from "./board.js";

const SVG = "http://www.w3.org/2000/svg";
const MINUS = "\u2212";

// An SVG element with attributes (presentation attributes only: the page allows no inline style).
function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  for (const child of children) node.append(child);
  return node;
}

// The page's own stylesheet, added once.
function loadStyle() {
  const href = new URL("../player.css", import.meta.url).href;
  if ([...document.styleSheets].some((sheet) => sheet.href === href)) return;
  document.head.append(el("link", { rel: "stylesheet", href }));
}

// A signed whole number with a real minus sign: "+12", "−8", "±0".
export const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `${MINUS}${-n}` : "\u00b10");

// "1662?" while provisional.
const ratingText = (r) => `${r.rating}${r.provisional ? "?" : ""}`;

const dateText = (seconds) => new Date(seconds * 1000).toISOString().slice(0, 10);

// The graph of one rating's history: the rating after each rated game, in the order played,
// with the lowest and highest values on the left. Described for screen readers in words.
export function ratingGraph(label, history) {
  const width = 320, height = 120, left = 40, right = 8, top = 10, bottom = 14;
  const values = history.map((p) => p.rating);
  const low = Math.min(...values), high = Math.max(...values);
  const span = Math.max(high - low, 20);
  const middle = (low + high) / 2;
  const min = middle - span / 2 - span * 0.1, max = middle + span / 2 + span * 0.1;
  const x = (i) => left + (history.length === 1 ? (width - left - right) / 2 : (i * (width - left - right)) / (history.length - 1));
  const y = (v) => top + ((max - v) * (height - top - bottom)) / (max - min);
  const first = values[0], last = values[values.length - 1];
  const words = `${label}: ${history.length} rated game${history.length === 1 ? "" : "s"}, from ${first} to ${last}; lowest ${low}, highest ${high}.`;
  const graph = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "rating-graph", role: "img", "aria-label": words },
    svg("title", {}, words),
    svg("line", { class: "axis", x1: left, y1: top, x2: left, y2: height - bottom }),
    svg("line", { class: "axis", x1: left, y1: height - bottom, x2: width - right, y2: height - bottom }),
    svg("text", { class: "tick", x: left - 4, y: y(high) + 4, "text-anchor": "end" }, String(high)),
    svg("text", { class: "tick", x: left - 4, y: y(low) + 4, "text-anchor": "end" }, String(low)));
  if (history.length > 1) {
    graph.append(svg("polyline", { class: "line", points: history.map((p, i) => `${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" ") }));
  }
  history.forEach((p, i) => {
    graph.append(svg("circle", { class: "point", cx: x(i).toFixed(1), cy: y(p.rating).toFixed(1), r: 3 },
      svg("title", {}, `${dateText(p.at)}: ${p.rating}`)));
  });
  return graph;
}

// A game's players other than `seat`, named (an account's linked to its page).
function opponents(game, seat) {
  const parts = [];
  for (const p of game.players || []) {
    if (p.seat === seat) continue;
    if (parts.length) parts.push(", ");
    if (p.player) parts.push(el("a", { href: `/player/${encodeURIComponent(p.player)}`, text: p.player }));
    else parts.push(p.kind === "computer" ? "the computer" : p.kind === "open" ? "an open seat" : `anonymous (${p.name})`);
  }
  return parts.length ? parts : ["nobody"];
}

const OUTCOMES = { win: "won", loss: "lost", draw: "draw" };

function outcomeText(game) {
  if (game.outcome) return OUTCOMES[game.outcome] || game.outcome;
  if (game.result && game.result.ended_by === "aborted") return "aborted";
  return game.over ? "over" : "in play";
}

// The page for `name`.
export async function showPlayer(name) {
  loadStyle();
  const main = document.querySelector("main");
  const section = el("section", { id: "player", "aria-labelledby": "player-name" });
  main.append(section);
  const heading = el("h1", { id: "player-name", text: name });
  const status = el("p", { id: "player-status", role: "status", class: "note", text: "Loading…" });
  section.replaceChildren(heading, status);
  document.title = `${name} · tabletop`;
  let player;
  let titles = new Map();
  try {
    [player, titles] = await Promise.all([
      api("GET", `/api/players/${encodeURIComponent(name)}`),
      api("GET", "/api/catalog").then(({ games }) => new Map(games.map((g) => [g.name, g.title])), () => new Map()),
    ]);
  } catch (error) {
    heading.textContent = error.status === 404 ? "No such player" : name;
    status.textContent = error.status === 404 ? `Nobody on this server is called ${name}.` : error.message;
    status.className = error.status === 404 ? "note" : "error";
    return;
  }
  const title = (game) => titles.get(game) || game;
  heading.replaceChildren(player.name);
  if (player.bot === true) heading.append(" ", el("span", { class: "badge bot", text: "bot", title: "A computer program playing through the API" }));
  document.title = `${player.name} · tabletop`;
  status.textContent = player.created ? `Playing here since ${dateText(player.created)}.` : "";

  // The ratings, each with its graph.
  const parts = [el("h2", { id: "ratings-title", text: "Ratings" })];
  if (!player.ratings.length) {
    parts.push(el("p", { class: "note", text: "No rated games yet." }));
  } else {
    const rows = player.ratings.map((r) => el("tr", {},
      el("th", { scope: "row", text: `${title(r.game)}, ${r.speed}` }),
      el("td", { class: "num", text: ratingText(r), title: r.provisional ? "Provisional: too few recent games to be sure" : "" }),
      el("td", { class: "num", text: `\u00b1${Math.round(r.rd)}` }),
      el("td", { class: "num", text: String(r.games) })));
    parts.push(el("table", { class: "ratings", "aria-labelledby": "ratings-title" },
      el("thead", {}, el("tr", {},
        el("th", { scope: "col", text: "Game" }), el("th", { scope: "col", text: "Rating" }),
        el("th", { scope: "col", text: "Deviation" }), el("th", { scope: "col", text: "Games" }))),
      el("tbody", {}, rows)));
    if (player.ratings.some((r) => r.provisional)) parts.push(el("p", { class: "note", text: "? marks a provisional rating (deviation 110 or more)." }));
    for (const r of player.ratings) {
      if (!r.history || !r.history.length) continue;
      const label = `${title(r.game)}, ${r.speed}`;
      parts.push(el("figure", { class: "rating-figure" }, ratingGraph(`Rating history, ${label}`, r.history),
        el("figcaption", { class: "note", text: `${label}: ${ratingText(r)} after ${r.history.length} rated game${r.history.length === 1 ? "" : "s"}` })));
    }
  }

  // The recent games.
  parts.push(el("h2", { text: "Recent games" }));
  if (!player.recent_games.length) {
    parts.push(el("p", { class: "note", text: "No games yet." }));
  } else {
    parts.push(el("ul", { class: "plain recent-games", id: "recent-games" }, player.recent_games.map((g) => {
      const what = `${title(g.game)}${g.clock && g.clock !== "none" ? ` ${g.clock}` : ""}${g.rated ? ", rated" : ""}`;
      const change = g.rating_change ? el("span", { class: "change " + (g.rating_change.change >= 0 ? "up" : "down"), text: ` ${signed(g.rating_change.change)}` }) : null;
      return el("li", { class: "outcome-" + (g.outcome || "none") },
        el("a", { href: `/game/${encodeURIComponent(g.id)}`, text: what }), " vs ", ...opponents(g, g.seat),
        el("span", { class: "outcome", text: `: ${outcomeText(g)}` }), change,
        el("span", { class: "note", text: ` (${dateText(g.created)})` }));
    })));
  }

  // The export.
  const base = `/api/players/${encodeURIComponent(player.name)}/games`;
  parts.push(el("h2", { text: "Export" }));
  parts.push(el("p", { class: "export-links" },
    el("a", { href: `${base}?format=text`, class: "button", download: `${player.name}-games.txt`, "aria-label": `Download ${player.name}'s games as text (GGF where the game is saved so)`, text: "Text" }), " ",
    el("a", { href: `${base}?format=ggf`, class: "button", download: `${player.name}-games.ggf`, "aria-label": `Download ${player.name}'s GGF games`, text: "GGF" }), " ",
    el("a", { href: `${base}?format=json`, class: "button", "aria-label": `${player.name}'s games as JSON`, text: "JSON" })));
  parts.push(el("p", { class: "note", text: "Ended games only in the text files; the newest 200." }));
  section.append(...parts);
}

const match = /^\/player\/([^/]+)\/?$/.exec(location.pathname);
if (match) {
  let name = match[1];
  try { name = decodeURIComponent(name); } catch { /* shown as written */ }
  showPlayer(name);
}
