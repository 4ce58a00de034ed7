// Shared pieces of the browser tests: the server, the browser, and what a player does.
import { chromium } from "playwright-core";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const target = process.env.CARGO_TARGET_DIR || join(root, "target");
export const binary = process.env.TABLETOP_BIN || join(target, "debug", "tabletop");
export const artifacts = join(root, "target", "browser-artifacts");
mkdirSync(artifacts, { recursive: true });

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1000, height: 1100 };

// A server on a free port with a fresh database, without rate limits: the tests are many people
// on one address (127.0.0.1), and anonymous people are counted by address across their games
// (the limits have tests of their own, crates/tabletop-web/tests/limits.rs).
export function startServer({ addr = "127.0.0.1:0", db = join(mkdtempSync(join(tmpdir(), "tabletop-browser-")), "games.db") } = {}) {
  const server = spawn(binary, ["serve", "--addr", addr, "--db", db, "--create-rate", "100000", "--hint-rate", "100000", "--move-rate", "100000", "--proposal-rate", "100000", "--seek-rate", "100000", "--max-open-games-per-address", "100000", "--game-seed", "1", "--claim-after", "3s",
    "--log-level", "warn"], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    server.on("error", reject);
    server.stdout.once("data", (chunk) => {
      const match = /http:\/\/([^/\s]+)\//.exec(String(chunk));
      if (match) resolve({ server, base: `http://${match[1]}/`, addr: match[1], db });
      else reject(new Error(`unexpected server output: ${chunk}`));
    });
  });
}

export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"],
  });
}

// A fresh browser context (its own localStorage: another person) with one page.
export async function person(browser, viewport = DESKTOP) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.on("console", (m) => {
    if (process.env.DEBUG) console.log("page:", m.text());
    // The server's Content-Security-Policy must never block what the page itself does.
    if (m.type() === "error" && /Content Security Policy/i.test(m.text())) page.errors = (page.errors || []).concat(m.text());
  });
  // Every request the page makes must find something (the favicon too).
  page.on("response", (response) => {
    if (response.status() === 404) page.missing = (page.missing || []).concat(response.url());
  });
  page.on("pageerror", (error) => { page.errors = (page.errors || []).concat(String(error)); });
  return page;
}

export const shot = (page, name) => page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true, animations: "disabled" });

export async function noSidewaysScroll(page, where) {
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  const viewport = page.viewportSize().width;
  assert.ok(width <= viewport, `${where}: the page is ${width} px wide in a ${viewport} px viewport`);
}

export const movesShown = (page) => page.locator("#moves li").count();
export const ply = (page) => page.evaluate(() => (window.tabletop.state ? window.tabletop.state.moves.length : -1));
export const isOver = (page) => page.evaluate(() => !!(window.tabletop.state && window.tabletop.state.status.over));

// Waits until this page may move (or the game is over).
export async function myTurn(page, timeout = 30000) {
  await page.waitForFunction(() => {
    const p = window.tabletop;
    const s = p.state;
    if (!s) return false;
    if (s.status.over) return true;
    return !s.thinking && !!p.tokens[s.status.to_move] && !s.proposal && s.players[s.status.to_move].kind === "human";
  }, null, { timeout });
}

export async function waitPly(page, n, timeout = 10000) {
  await page.waitForFunction((n) => window.tabletop.state && (window.tabletop.state.moves.length >= n || window.tabletop.state.status.over), n, { timeout });
}

// Clicks through the confirmation dialog.
export async function confirm(page) {
  await page.locator("dialog#confirm[open]").waitFor();
  await page.click("#confirm-ok");
  await page.locator("dialog#confirm[open]").waitFor({ state: "detached" }).catch(() => {});
}

// Plays one move on the board by clicking, as a person would: a marked cell (Slide in the slide
// phase: a tile first, then where it goes). `choose` picks among the playable cells.
export async function clickMove(page, choose = (n) => 0) {
  const game = await page.evaluate(() => window.tabletop.state.game);
  if (game === "mathable") return mathableTurn(page);
  if (game === "slide" && (await page.evaluate(() => window.tabletop.state.board.phase)) === "slide") {
    const sources = page.locator("#board .cell.playable:not(.legal)");
    const count = await sources.count();
    await sources.nth(choose(count)).click();
    await page.locator("#board .cell.legal.playable").first().waitFor();
    await page.locator("#board .cell.legal.playable").first().click();
    return;
  }
  const cells = page.locator("#board .cell.playable");
  const count = await cells.count();
  if (count === 0) return; // a Reversi pass happens by itself
  await cells.nth(choose(count)).click();
}

// A Mathable turn: place a fitting token if there is one (cell first, then the token), then end the turn
// (or draw, when nothing fits and drawing is allowed).
export async function mathableTurn(page) {
  const before = await ply(page);
  const fit = await page.evaluate(() => {
    const b = window.tabletop.state.board;
    return b.placements.length ? b.placements[0] : null;
  });
  if (fit) {
    // A live update may redraw the board between press and release, losing the click: a person
    // would tap again, and so does the test (at most three times).
    const chosen = page.locator(`#board .cell[data-key="${fit.cell}"].chosen`);
    for (let attempt = 0; attempt < 3 && !(await chosen.isVisible()); attempt++) {
      await page.click(`#board .cell[data-key="${fit.cell}"]`);
      await chosen.waitFor({ timeout: 3000 }).catch(() => {});
    }
    await chosen.waitFor();
    await page.locator(".rack button.fits").first().click();
    await waitPly(page, before + 1);
    await myTurn(page);
    if (await isOver(page)) return;
  }
  // The buttons follow the state the page has: wait until it offers ending the turn or drawing
  // (or the turn has passed), rather than reading them while an answer is still on its way.
  await page.waitForFunction(() => {
    const p = window.tabletop;
    const s = p.state;
    const mine = s && !s.status.over && !!p.tokens[s.status.to_move] && s.players[s.status.to_move].kind === "human";
    return !mine || !document.querySelector("#end-turn")?.disabled || !document.querySelector("#draw")?.disabled;
  }, null, { timeout: 30000 });
  if (await isOver(page)) return;
  const endTurn = page.locator("#end-turn");
  if (await endTurn.isEnabled()) { await endTurn.click(); return; }
  const draw = page.locator("#draw");
  if (await draw.isEnabled()) { await draw.click(); return; }
  // Neither is offered, so (by the wait above) the turn has passed: nothing is left to do.
}

// Controls without an accessible name (a label, text or aria-label): there should be none.
export async function unnamedControls(page) {
  return page.evaluate(() => [...document.querySelectorAll("button, input, select, a, textarea")]
    .filter((e) => e.offsetParent !== null || e.closest("dialog[open]"))
    .filter((e) => {
      const name = e.getAttribute("aria-label") || (e.labels && e.labels.length && e.labels[0].textContent) ||
        (e.getAttribute("aria-labelledby") && document.getElementById(e.getAttribute("aria-labelledby"))?.textContent) ||
        (!["INPUT", "SELECT", "TEXTAREA"].includes(e.tagName) && e.textContent) || e.getAttribute("title") || e.getAttribute("alt");
      return !name || !name.trim();
    })
    .map((e) => e.outerHTML.slice(0, 120)));
}
