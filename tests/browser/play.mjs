// Plays short games on the tabletop page in headless Chromium by clicking, checks what the page
// shows, and saves a screenshot of each game to target/browser-artifacts/.
//
// Run by scripts/test (after `cargo test`, which builds target/debug/tabletop).
import { chromium } from "playwright-core";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const binary = process.env.TABLETOP_BIN || join(root, "target", "debug", "tabletop");
const artifacts = join(root, "target", "browser-artifacts");
mkdirSync(artifacts, { recursive: true });

function startServer() {
  const db = join(mkdtempSync(join(tmpdir(), "tabletop-browser-")), "games.db");
  const server = spawn(binary, ["serve", "--addr", "127.0.0.1:0", "--db", db], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    server.on("error", reject);
    server.stdout.once("data", (chunk) => {
      const match = /http:\/\/([^/\s]+)\//.exec(String(chunk));
      if (match) resolve({ server, base: `http://${match[1]}/` });
      else reject(new Error(`unexpected server output: ${chunk}`));
    });
  });
}

async function newGame(page, base, game, setup) {
  await page.goto(base);
  await page.selectOption("#game", game);
  await setup();
  await Promise.all([page.waitForURL(/\?game=/), page.click("button[type=submit]")]);
  await page.waitForSelector("#board button");
}

const movesShown = (page) => page.locator("#moves li").count();

async function slideGame(page, base) {
  await newGame(page, base, "slide", async () => {
    await page.fill("#size", "3");
    await page.fill("#empty", "1");
    await page.selectOption("#seat0", "human");
    await page.selectOption("#seat1", "classic:levels=2");
  });
  assert.match(await page.textContent("#status"), /Blue \(b\) to move/);
  // A placement by clicking square 5, then the computer's reply arrives by itself.
  await page.click('button[aria-label="square 5, empty"]');
  await page.waitForFunction(() => document.querySelectorAll("#moves li").length === 2);
  assert.equal(await page.locator('button[aria-label="square 5, blue tile"]').count(), 1);
  // Undo takes back the round (the computer's move and ours).
  await page.click("#undo");
  await page.waitForFunction(() => document.querySelectorAll("#moves li").length === 0);
  // Play on by clicking until the game ends: a highlighted target, or a tile then a target.
  for (let turn = 0; turn < 80; turn++) {
    const status = await page.textContent("#status");
    if (/won|Draw/.test(status)) break;
    await page.waitForFunction(() => !/thinking/.test(document.querySelector("#status").textContent));
    const before = await movesShown(page);
    const target = page.locator("#board button.legal:enabled");
    if ((await target.count()) === 0) {
      const source = page.locator("#board button.b:enabled");
      if ((await source.count()) === 0) { await page.waitForTimeout(100); continue; }
      await source.first().click();
    }
    await page.locator("#board button.legal:enabled").first().click();
    await page.waitForFunction((n) => document.querySelectorAll("#moves li").length > n, before);
    await page.waitForFunction(() => /won|Draw|Blue \(b\) to move$/.test(document.querySelector("#status").textContent));
  }
  const result = await page.textContent("#status");
  assert.match(result, /won|Draw/, `the game ended: ${result}`);
  await page.screenshot({ path: join(artifacts, "slide.png"), fullPage: true });
}

async function reversiGame(page, base) {
  await newGame(page, base, "reversi", async () => {
    await page.selectOption("#seat0", "human");
    await page.selectOption("#seat1", "random");
  });
  assert.match(await page.textContent("#status"), /Black to move/);
  assert.equal(await page.locator("#board button.legal").count(), 4, "four legal moves marked at the start");
  assert.match(await page.textContent("#scores"), /Black: 2\s*White: 2/);
  // f5 flips e5: black has 4 discs, white 1, and the flip is animated.
  await page.click('button[aria-label="f5, legal move"]');
  await page.waitForFunction(() => document.querySelectorAll("#moves li").length >= 2);
  assert.equal(await page.locator('button[aria-label="f5, black disc"]').count(), 1);
  // Keep playing the first marked move for a few turns; passes are automatic.
  for (let turn = 0; turn < 6; turn++) {
    await page.waitForFunction(() => /Black to move$|won|Draw/.test(document.querySelector("#status").textContent));
    if (/won|Draw/.test(await page.textContent("#status"))) break;
    const before = await movesShown(page);
    await page.locator("#board button.legal").first().click();
    await page.waitForFunction((n) => document.querySelectorAll("#moves li").length >= n + 2 || /won|Draw/.test(document.querySelector("#status").textContent), before);
  }
  const discs = await page.textContent("#scores");
  const [black, white] = discs.match(/\d+/g).map(Number);
  assert.equal(black + white, 4 + (await movesShown(page)), "one disc more per move");
  await page.screenshot({ path: join(artifacts, "reversi.png"), fullPage: true });
}

async function connectGame(page, base) {
  await newGame(page, base, "connect", async () => {
    await page.selectOption("#connect-preset", "connect3");
    await page.selectOption("#seat0", "human");
    await page.selectOption("#seat1", "human");
  });
  assert.equal(await page.locator("#board button").count(), 12, "4 x 3 cells");
  // X stacks column 1 while O stacks column 2: X completes a vertical line of three.
  for (const column of ["1", "2", "1", "2", "1"]) {
    const before = await movesShown(page);
    await page.locator(`#board button[aria-label^="column ${column},"]:enabled`).first().click();
    await page.waitForFunction((n) => document.querySelectorAll("#moves li").length === n + 1, before);
  }
  assert.match(await page.textContent("#status"), /X won/);
  assert.equal(await page.locator("#board button.win").count(), 3, "the winning line is highlighted");
  await page.screenshot({ path: join(artifacts, "connect.png"), fullPage: true });
  // The solver's verdict as a hint: Connect Three is a first-player win.
  await newGame(page, base, "connect", async () => {
    await page.selectOption("#connect-preset", "connect3");
    await page.selectOption("#seat0", "human");
    await page.selectOption("#seat1", "engine");
  });
  await page.click("#hint");
  await page.waitForFunction(() => /Hint: \d \(X wins in \d+ moves?\)/.test(document.querySelector("#message").textContent), null, { timeout: 20000 });
  // A drop against the perfect player: it answers by itself.
  await page.locator('#board button[aria-label^="column 2,"]:enabled').first().click();
  await page.waitForFunction(() => document.querySelectorAll("#moves li").length === 2, null, { timeout: 20000 });
}

async function mathableGame(page, base) {
  await newGame(page, base, "mathable", async () => {
    await page.selectOption("#preset", "classic");
    await page.fill("#players", "2");
    await page.dispatchEvent("#players", "change");
    await page.selectOption("#seat0", "human");
    await page.selectOption("#seat1", "greedy");
  });
  assert.match(await page.textContent("#status"), /Player 1 to move/);
  assert.equal(await page.locator(".rack button").count(), 7, "seven tokens on the rack");
  // Choose rack tokens until one has a highlighted target cell, then place it there.
  const rack = page.locator(".rack button");
  let placed = false;
  for (let i = 0; i < 7 && !placed; i++) {
    await rack.nth(i).click();
    if ((await page.locator(".m-cell.target").count()) > 0) {
      const target = page.locator(".m-cell.target").first();
      assert.match(await target.textContent(), /^\+\d+$/, "the target shows the points it scores");
      await target.click();
      await page.waitForFunction(() => document.querySelectorAll("#moves li").length === 1);
      placed = true;
    } else {
      await rack.nth(i).click(); // deselect
    }
  }
  assert.ok(placed, "some token on the starting rack fits an equation");
  assert.match(await page.textContent("#scores"), /Player 1: [1-9]/, "the placement scored");
  await page.getByRole("button", { name: "End turn" }).click();
  // The computer plays its turn; then it is player 1's turn again.
  await page.waitForFunction(() => {
    const moves = [...document.querySelectorAll("#moves li")].map((li) => li.textContent);
    return moves.filter((m) => m === "end" || m.startsWith("swap")).length >= 2 || /won/.test(document.querySelector("#status").textContent);
  }, null, { timeout: 20000 });
  assert.match(await page.textContent("#status"), /Player 1 to move|won/);
  await page.screenshot({ path: join(artifacts, "mathable.png"), fullPage: true });
}

const { server, base } = await startServer();
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"],
});
let passed = 0;
let failed = 0;
for (const [name, play] of [["slide", slideGame], ["reversi", reversiGame], ["connect", connectGame], ["mathable", mathableGame]]) {
  const page = await browser.newPage({ viewport: { width: 900, height: 1000 } });
  try {
    await play(page, base);
    passed++;
    console.log(`ok - ${name}`);
  } catch (error) {
    failed++;
    console.log(`not ok - ${name}: ${error.stack || error}`);
    await page.screenshot({ path: join(artifacts, `${name}-failure.png`), fullPage: true }).catch(() => {});
  }
  await page.close();
}
await browser.close();
server.kill();
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
