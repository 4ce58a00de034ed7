// The browser tests: people using the tabletop page in headless Chromium (Debian's), as they
// would: start games from the start page, play them to the end by clicking, invite a friend,
// watch, take back, resign; on a desktop and on a 390 px phone. Screenshots of each land in
// target/browser-artifacts/. The defaults and phone tests run for every game the server's
// catalog lists (`eachGame`), so a new game gets them without a line here; waits are on the
// server's state as the page holds it (window.tabletop), not on time.
//
// Run by scripts/test (after `cargo test`, which builds target/debug/tabletop), or alone:
//   node tests/browser/play.mjs [name-filter]
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { startServer, launch, person, shot, noSidewaysScroll, unnamedControls, myTurn, waitPly, ply, isOver, confirm, clickMove, PHONE, DESKTOP } from "./lib.mjs";

const tests = [];
const test = (name, fn) => tests.push({ name, fn });
// A test for every game the server's catalog (`GET /api/catalog`) lists, so a new game gets it
// without a line here: `name(game)` names it, `fn(context, game)` runs it.
const eachGame = (name, fn) => tests.push({ name, fn, eachGame: true });

// ---- against the computer, with the start page's defaults ----

// Starts a game from the start page touching nothing but the game's card.
async function startWithDefaults(page, base, game) {
  await page.goto(base);
  // The cards come from the catalog: every game it lists has a card (its page module loaded).
  await page.locator("#game-choice input").first().waitFor();
  const offered = await page.locator(`#game-${game}`).count();
  assert.equal(offered, 1, `the start page offers ${game} (js/games/${game}.js and .css): ${await page.textContent("#start-error")}`);
  await page.click(`label:has(#game-${game})`);
  await Promise.all([page.waitForURL(/\/game\/[0-9a-f]+$/), page.click("button[type=submit]")]);
  await page.locator("#board .cell").first().waitFor();
}

async function playOutAgainstComputer(page, name, { maxTurns = 80, phone = false } = {}) {
  for (let turn = 0; turn < maxTurns; turn++) {
    await myTurn(page, 60000);
    if (await isOver(page)) break;
    if (phone && turn === 2) await noSidewaysScroll(page, `${name} during the game`);
    const before = await ply(page);
    await clickMove(page, (n) => (turn * 7) % n);
    await page.waitForFunction((n) => window.tabletop.state.moves.length > n || window.tabletop.state.status.over, before, { timeout: 60000 });
  }
}

// What the defaults test does besides the common course for some games: `start(page)` right
// after the start, `maxTurns` moves played out (40 unless said), `finish(page)` ends a game
// still going (else the person resigns), `end(page, result)` checks the finished game.
const DEFAULTS = {
  slide: {
    async start(page) {
      assert.match(await page.textContent("#status"), /Your move \(Blue\)/);
      assert.equal(await page.locator("#board .cell").count(), 9, "3 x 3 by default");
      // Undo against the computer takes back the round at once.
      await page.click('#board [aria-label^="square 5,"]');
      await waitPly(page, 2);
      await myTurn(page);
      assert.equal(await page.locator('[aria-label^="square 5, blue tile"]').count(), 1);
      await page.click("#undo");
      await page.waitForFunction(() => window.tabletop.state.moves.length === 0);
    },
    // The exact engine holds a draw forever: the person then resigns.
    maxTurns: 60,
  },
  reversi: {
    async start(page) {
      assert.equal(await page.textContent("#start-error").catch(() => ""), "", "no error on Start");
      assert.match(await page.textContent("#status"), /Your move \(Black\)/);
      assert.equal(await page.locator("#board .cell.legal").count(), 4, "four legal moves marked at the start");
      // Coordinates: files a-h above, ranks 1-8 at the left, and named cells.
      assert.equal(await page.locator("#board .coord.col").allTextContents().then((t) => t.join("")), "abcdefgh");
      assert.equal(await page.locator("#board .coord.row").allTextContents().then((t) => t.join("")), "12345678");
      assert.equal(await page.getByRole("button", { name: /^d3, legal move/ }).count(), 1, "cells are named by their coordinate");
      // Keyboard: from c4, right to d4, up to d3, Enter plays d3.
      await page.locator('#board [data-key="c4"]').focus();
      await page.keyboard.press("ArrowRight");
      await page.keyboard.press("ArrowUp");
      assert.equal(await page.evaluate(() => document.activeElement.dataset.key), "d3");
      await page.keyboard.press("Enter");
      await waitPly(page, 2, 30000);
      assert.equal(await page.evaluate(() => window.tabletop.state.moves[0]), "d3");
    },
    finish: null, // a whole game is played
    async end(page, text) {
      assert.match(text, /(Black|White) wins \(Black \d+, White \d+ discs\)|Draw \(Black 32, White 32 discs\)/, text);
      assert.doesNotMatch(text, /seat \d/);
    },
  },
  connect: {
    async start(page) {
      assert.equal(await page.locator("#board .cell").count(), 42, "7 x 6 by default");
      assert.equal(await page.locator("#board .coord.col").allTextContents().then((t) => t.join("")), "1234567");
      // Keyboard: the digit 4 drops a piece in column 4.
      await page.keyboard.press("4");
      await waitPly(page, 1);
      assert.equal(await page.evaluate(() => window.tabletop.state.moves[0]), "4");
      // Analysis against the computer: every legal column gets its value on the board.
      await myTurn(page, 30000);
      await page.click("#analysis");
      await page.waitForFunction(() => document.querySelectorAll("#board .cell .val").length > 0 || /not available|busy/i.test(document.querySelector("#advice").textContent), null, { timeout: 20000 });
      const legal = await page.evaluate(() => window.tabletop.state.legal.length);
      assert.equal(await page.locator("#board .cell .val").count(), legal, "a value on each legal column");
      assert.match(await page.textContent("#advice"), /Analysis \(best first\): \d /);
      await shot(page, "connect-analysis");
    },
    maxTurns: 25,
    finish: null, // the perfect computer wins or draws within 21 moves
    async end(page, text) {
      assert.ok((await page.locator("#board .cell.win").count()) >= 4 || /Draw/.test(text), "the winning line is highlighted");
    },
  },
  mathable: {
    // The rack and actions stay after the computer's turn; Terminate is the computer's to accept.
    async start(page) {
      assert.equal(await page.locator(".rack button").count(), 7, "seven tokens on the rack");
      assert.equal(await page.locator("#board .coord.col").first().textContent(), "A");
      let shown = false;
      for (let turn = 0; turn < 4; turn++) {
        await myTurn(page, 60000);
        if (await isOver(page)) break;
        const token = await page.evaluate(() => { const p = window.tabletop.state.board.placements; return p.length ? p[0].token : null; });
        if (token !== null && !shown) {
          // A chosen rack token shows where it fits and for how many points.
          const button = page.locator(".rack button", { hasText: new RegExp(`^${token}$`) }).first();
          await button.click();
          await page.locator("#board .cell.target").first().waitFor();
          assert.match(await page.locator("#board .cell.target").first().textContent(), /^\+\d+$/, "the target shows the points it scores");
          await shot(page, "mathable-computer-playing");
          // With the token chosen, a first tap on a marked square chooses it and the help says
          // what the second tap does; the second tap places the token there.
          const where = await page.evaluate((t) => window.tabletop.state.board.placements.find((p) => p.token === t).cell, token);
          const square = page.locator(`#board .cell[data-key="${where}"]`);
          await square.click();
          await page.locator(`#board .cell[data-key="${where}"].chosen`).waitFor();
          assert.match(await page.textContent("#help"), new RegExp(`^Tap ${where} again to place ${token} there`));
          const placing = await ply(page);
          await square.click();
          await page.waitForFunction((n) => window.tabletop.state.moves.length > n, placing);
          assert.equal(await page.evaluate(() => window.tabletop.state.moves.at(-1)), `${where}=${token}`);
          shown = true;
        }
        const before = await ply(page);
        await clickMove(page);
        await page.waitForFunction((n) => window.tabletop.state.moves.length > n, before);
        // The computer plays its turn; then the rack and the buttons are there, without a reload.
        await myTurn(page, 60000);
        if (await isOver(page)) break;
        assert.equal(await page.locator(".rack button").count() > 0, true, "the rack is shown after the computer's turn");
        // What the computer placed in its turn stays marked until the next placement (once the
        // page has the state after the computer's turn).
        await page.waitForFunction(() => {
          const s = window.tabletop.state;
          return s.status.over || (s.status.to_move === s.your_seat && s.history.length > 0 && s.history.at(-1).seat !== s.your_seat);
        }, null, { timeout: 60000 });
        if (await isOver(page)) break;
        // The computer's turn ended with a draw: it cannot be taken back, and Undo says so.
        assert.equal(await page.locator("#undo").isDisabled(), true, "Undo is off after the computer's turn");
        const computerPlaced = await page.evaluate(() => {
          const s = window.tabletop.state;
          const h = s.history;
          const computer = 1 - s.your_seat;
          let i = h.length - 1;
          while (i >= 0 && h[i].seat === computer && (h[i].move === "end" || h[i].move === "draw")) i--;
          const cells = [];
          for (; i >= 0 && h[i].seat === computer && (/^[A-Z]+\d+=/.test(h[i].move) || h[i].move === "draw"); i--) {
            if (h[i].move !== "draw") cells.push(h[i].move.split("=")[0]);
          }
          return cells.sort();
        });
        const marked = await page.evaluate(() => [...document.querySelectorAll("#board .cell.recent")].map((c) => c.dataset.key).sort());
        const recentHistory = await page.evaluate(() => JSON.stringify(window.tabletop.state.history.slice(-6)));
        assert.deepEqual(marked, computerPlaced, `the computer's placements are marked; the last moves: ${recentHistory}`);
        for (const id of ["#end-turn", "#draw", "#swap", "#terminate"]) assert.equal(await page.locator(id).isVisible(), true, `${id} is shown`);
      }
    },
    maxTurns: 0,
    async finish(page) {
      // Against the computer, Terminate is a proposal it answers: it agrees only when it leads or
      // cannot catch up, else it says why and the game goes on (then the person resigns).
      await page.click("#terminate");
      await confirm(page);
      await page.waitForFunction(() => window.tabletop.state.status.over || /does not agree to end the game/.test(document.querySelector("#message").textContent));
      if (!(await isOver(page))) {
        await page.click("#resign");
        await confirm(page);
      }
    },
    async end(page, text) {
      assert.match(text, /Player \d wins \(Player 1 \d+, Player 2 \d+ points\)|Draw/);
    },
  },
};

// m,n,k (tic-tac-toe by default) has no page module of its own: the generic grid module
// (js/games/grid.js) draws it from the catalog entry and the board JSON.
DEFAULTS.mnk = {
  async start(page) {
    assert.equal(await page.textContent("#game-title"), "m,n,k-game", "the defaults need no words");
    assert.equal(await page.locator("#board .cell").count(), 9, "3 x 3 by default");
    assert.equal(await page.locator("#board .coord.col").allTextContents().then((t) => t.join("")), "abc");
    assert.equal(await page.locator("#board .coord.row").allTextContents().then((t) => t.join("")), "321");
    assert.equal(await page.getAttribute('#board [data-key="b2"]', "aria-label"), "b2, empty");
    // Keyboard: from a3, right to b3, down to b2, Enter plays b2; the computer answers.
    await page.locator('#board [data-key="a3"]').focus();
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("ArrowDown");
    assert.equal(await page.evaluate(() => document.activeElement.dataset.key), "b2");
    await page.keyboard.press("Enter");
    await waitPly(page, 2, 30000);
    assert.equal(await page.evaluate(() => window.tabletop.state.moves[0]), "b2");
    assert.match(await page.getAttribute('#board [data-key="b2"]', "aria-label"), /^b2, X\b/);
    assert.equal(await page.locator("#board .cell.taken").count(), 2);
    assert.equal(await page.locator("#board .cell.last").count(), 1, "the computer's move is marked");
    // The grid module's stylesheet is in: the players' swatches have their seats' colours.
    assert.equal(await page.locator(".swatch.seat0").evaluate((e) => getComputedStyle(e).backgroundColor), "rgb(0, 114, 178)");
    await shot(page, "mnk-computer-start");
  },
  maxTurns: 10,
  async end(page, text) {
    assert.match(text, /X wins|O wins|Draw/, text);
  },
};

eachGame((game) => `${game}: the start page's defaults, played against the computer to the end`, async ({ browser, base }, game) => {
  const extra = DEFAULTS[game] || {};
  const page = await person(browser);
  await startWithDefaults(page, base, game);
  assert.equal(await page.textContent("#start-error"), "", "no error on Start");
  assert.match(await page.textContent("#status"), /^Your move/);
  assert.deepEqual(await unnamedControls(page), [], `every control on the ${game} page has a name`);
  if (extra.start) await extra.start(page);
  await playOutAgainstComputer(page, game, { maxTurns: extra.maxTurns ?? 40 });
  await myTurn(page, 60000);
  if (!(await isOver(page))) {
    assert.notEqual(extra.finish, null, `the ${game} game ends within ${extra.maxTurns} turns`);
    if (extra.finish) await extra.finish(page);
    else {
      await page.click("#resign");
      await confirm(page);
    }
  }
  await page.locator("#result:not([hidden])").waitFor();
  const text = await page.textContent("#result");
  assert.match(text, /wins|Draw/, text);
  if (extra.end) await extra.end(page, text);
  // The finished game can be stepped through from its first position.
  if (await page.evaluate(() => window.tabletop.state.moves.length) > 0) {
    await stepTo(page, "#step-first", 0);
    await stepTo(page, "#step-last", await ply(page));
  }
  await shot(page, `${game}-computer`);
});

test("reversi: the computer's levels are offered by name; a level picked by name answers a move", async ({ browser, base }) => {
  const page = await person(browser);
  await page.goto(base);
  await page.click("label:has(#game-reversi)");
  const select = page.getByLabel("Computer strength");
  const labels = await select.locator("option").allTextContents();
  assert.deepEqual(labels.slice(0, 10), ["Beginner (level 1)", "Novice (level 2)", "Casual (level 3)", "Intermediate (level 4)",
    "Club (level 5)", "Advanced (level 6)", "Expert (level 7)", "Master (level 8)", "Grandmaster (level 9)", "Maximum (level 10)"]);
  assert.deepEqual(labels.slice(10), ["Full strength (engine)", "Random moves"]);
  // The first choice is the server's default, the terminal's too (tabletop::levels::DEFAULT_COMPUTER).
  const catalog = await (await fetch(base + "api/catalog")).json();
  assert.equal(await select.inputValue(), catalog.games.find((g) => g.name === "reversi").default_computer);
  assert.equal(await select.inputValue(), "engine", "a person starts at the engine, as in the terminal");
  // Every game offers the same ten levels by name.
  for (const game of catalog.games) {
    await page.click(`label:has(#game-${game.name})`);
    const offered = await select.locator("option").allTextContents();
    assert.deepEqual(offered.slice(0, 10), labels.slice(0, 10), game.name);
    assert.equal(await select.inputValue(), game.default_computer, game.name);
  }
  await page.click("label:has(#game-reversi)");
  await select.selectOption({ label: "Club (level 5)" });
  await shot(page, "reversi-level-start");
  await Promise.all([page.waitForURL(/\/game\/[0-9a-f]+$/), page.click("button[type=submit]")]);
  await page.locator("#board .cell").first().waitFor();
  assert.equal(await page.evaluate(() => window.tabletop.state.players[1].spec), "engine:level=5");
  await page.locator(".player .presence.computer", { hasText: "Club (level 5)" }).waitFor();
  await page.getByRole("button", { name: /^f5, legal move/ }).click();
  await waitPly(page, 2, 30000);
  const [mine, reply] = await page.evaluate(() => window.tabletop.state.moves.slice(0, 2));
  assert.equal(mine, "f5");
  assert.ok(["d6", "f4", "f6"].includes(reply), `the computer answered with a legal move, not ${reply}`);
  await myTurn(page);
  await shot(page, "reversi-level-club");
});

// The columns the person drops into (the first legal one of each group) before turning the
// analysis on in the refinement test: a position whose step 0 leaves columns open in the debug
// build the tests serve (its budgets are 5% of a release build's), and whose later steps solve
// some of them. The computer's first three replies come from the book; its later two are on
// its clock, so the position depends on the machine's load. Each one seen leaves columns open
// at step 0 and closes some later (open columns by step: 4444355553 idle 7, 6, 5; 4444355552
// in CI 6, 5, 2; 4444355152 with both cores busy 4, 2, 2; or `target/debug/tabletop analyze
// connect --position P --time 1.5s`, 3s, 5s). The earlier position of twelve stones became
// exact at step 0 once the solver took a quarter fewer nodes (issue 27).
const REFINE_COLUMNS = [["4"], ["4"], ["3"], ["5"], ["5"]];

test("connect: analysis from the defaults refines in the background until every value is exact", async ({ browser, base }) => {
  const page = await person(browser);
  await startWithDefaults(page, base, "connect");
  for (const choices of REFINE_COLUMNS) {
    await myTurn(page, 60000);
    assert.equal(await isOver(page), false);
    const legal = await page.evaluate(() => window.tabletop.state.legal);
    const column = choices.find((c) => legal.includes(c)) || legal[0];
    const before = await ply(page);
    await page.keyboard.press(column);
    await page.waitForFunction((n) => window.tabletop.state.moves.length > n, before);
  }
  await myTurn(page, 60000);
  const played = await page.evaluate(() => window.tabletop.state.moves.join(""));
  // Every text the status takes, as it happens (not sampled).
  await page.evaluate(() => {
    window.refineTexts = [];
    new MutationObserver(() => window.refineTexts.push(document.querySelector("#refine-status").textContent))
      .observe(document.querySelector("#refine-status"), { childList: true, characterData: true, subtree: true });
  });
  await page.click("#analysis");
  // Wait for the page to stop refining by itself: every value exact, or the last step.
  const key = await page.evaluate(() => `${window.tabletop.state.moves.length}:${window.tabletop.state.moves.length}`);
  await page.waitForFunction((key) => {
    const r = window.tabletop.refining.get(key);
    return r && !r.running && r.step >= 0 && (r.open === 0 || !r.refinable);
  }, key, { timeout: 180000 });
  const r = await page.evaluate((key) => window.tabletop.refining.get(key), key);
  const texts = await page.evaluate(() => window.refineTexts);
  console.log(`  position ${played}: open moves by step ${r.history.map((h) => `${h.step}:${h.open}`).join(" ")}; status ${JSON.stringify([...new Set(texts)])}`);
  assert.ok(r.history[0].open > 0, `step 0 leaves columns open at ${played}`);
  assert.deepEqual(r.history.map((h) => h.step), r.history.map((_, i) => i), "one step after the other");
  for (let i = 1; i < r.history.length; i++) assert.ok(r.history[i].open <= r.history[i - 1].open, `step ${i} opened columns`);
  assert.ok(texts.some((t) => /^Refining… \(\d+ moves? open, depth \d+\)$/.test(t)), `the status said it was refining: ${texts}`);
  assert.ok(r.history.length >= 2, `the page asked for a further step by itself: ${JSON.stringify(r.history)}`);
  assert.equal(await page.getAttribute("#refine-status", "aria-live"), "polite");
  const values = await page.evaluate((key) => window.tabletop.analysis.get(key), key);
  assert.equal(values.filter((m) => !m.exact).length, r.open, "the values shown are the last step's");
  if (r.open === 0) {
    assert.equal(await page.textContent("#refine-status"), "All values exact.");
  } else {
    // Refined as far as this server's time allows (the last step), moves still open.
    assert.equal(r.step, r.last, `stopped before the last step: ${JSON.stringify(r)}`);
    assert.match(await page.textContent("#refine-status"), /^As exact as this server's time allows: \d+ moves? open/);
  }
  const legal = await page.evaluate(() => window.tabletop.state.legal.length);
  assert.equal(await page.locator("#board .cell .val").count(), legal, "a value on each legal column");
  await shot(page, "connect-analysis-refined");
  // Analysis off: the values and the status go.
  await page.click("#analysis");
  assert.equal(await page.textContent("#refine-status"), "");
  assert.equal(await page.locator("#board .cell .val").count(), 0);
});

test("resign against the computer is shown as a loss", async ({ browser, base }) => {
  const page = await person(browser);
  await startWithDefaults(page, base, "connect");
  await page.keyboard.press("1");
  await waitPly(page, 2, 30000);
  await myTurn(page);
  await page.click("#resign");
  // Cancel first: nothing happens.
  await page.locator("dialog#confirm[open]").waitFor();
  await page.click("#confirm-cancel");
  assert.equal(await isOver(page), false);
  await page.click("#resign");
  await confirm(page);
  await page.locator("#result:not([hidden])").waitFor();
  const text = await page.textContent("#result");
  assert.match(text, /O wins: X resigned\. You lost\./, text);
  assert.match(await page.getAttribute("#result", "class"), /loss/);
});


test("review: a Connect Three game against the computer played to the end, reviewed: marks in the move list, the graph steps the board (desktop and phone)", async ({ browser, base }) => {
  const page = await person(browser);
  await page.goto(base);
  await page.click("label:has(#game-connect)");
  await page.click("#options-box summary");
  await page.selectOption("#connect-preset", "connect3");
  await Promise.all([page.waitForURL(/\/game\/[0-9a-f]+$/), page.click("button[type=submit]")]);
  await page.locator("#board .cell").first().waitFor();
  // No Review button while the game goes on.
  assert.equal(await page.locator("#review").isVisible(), false, "no Review during the game");
  // The person's columns in a fixed order against the exact computer, to the end.
  await playOutAgainstComputer(page, "connect", { maxTurns: 20 });
  await page.locator("#result:not([hidden])").waitFor();
  const plies = await ply(page);
  await page.getByRole("button", { name: "Review" }).click();
  await page.waitForFunction(() => window.tabletop.review && typeof window.tabletop.review === "object", null, { timeout: 60000 });
  const review = await page.evaluate(() => window.tabletop.review);
  assert.equal(review.moves.length, plies);
  assert.equal(review.values.length, plies + 1);
  // The server's marks are in the move list, each with its words for screen readers.
  const marked = review.moves.filter((m) => m.mark);
  assert.ok(marked.length > 0, "the person's moves against an exact engine earn marks: " + JSON.stringify(review.moves));
  assert.equal(await page.locator("#moves .mark").count(), marked.length);
  const symbol = { inaccuracy: "?!", mistake: "?", blunder: "??" };
  for (const m of marked) {
    const item = page.locator("#moves li").nth(m.ply);
    assert.equal(await item.locator(".mark").textContent(), symbol[m.mark]);
    assert.match(await item.locator(".mark").getAttribute("aria-label"), new RegExp(`^${m.mark}`));
    assert.equal(await page.getByRole("button", { name: new RegExp(`after move ${m.ply + 1}, .*${m.mark} \\(`) }).count(), 1, "the move's button names its mark");
  }
  assert.match(await page.textContent("#review-summary"), /X: \d+ \?! inaccurac(y|ies), \d+ \? mistakes?, \d+ \?\? blunders?/);
  // The graph: one point per position, marked moves' points named by their mark.
  const points = page.locator("#review-graph circle");
  assert.equal(await points.count(), plies + 1);
  assert.equal(await page.locator("#review-graph circle.mark-blunder").count(), review.moves.filter((m) => m.mark === "blunder").length);
  await shot(page, "review-connect3-desktop");
  // A point steps the board to that position: the board shown is the server's board after 2 moves.
  await page.getByRole("button", { name: /^After move 2, / }).click();
  await page.waitForFunction(() => window.tabletop.step === 2);
  assert.equal(await page.textContent("#step-pos"), `Move 2 of ${plies}`);
  assert.equal(await page.textContent("#help"), `Showing the position after move 2 of ${plies}.`);
  const board = await page.evaluate(() => JSON.stringify(window.tabletop.boards.get(2)));
  assert.ok(board && board !== "undefined", "the board after move 2 came from the server");
  assert.match(await page.locator("#review-graph circle.current").getAttribute("aria-label"), /^After move 2, /);
  await shot(page, "review-connect3-stepped");
  // The start point steps back to the empty board.
  await page.getByRole("button", { name: /^Start: / }).click();
  await page.waitForFunction(() => window.tabletop.step === 0);
  // A phone: the same review, as a watcher of the finished game, without sideways scrolling.
  const phone = await person(browser, PHONE);
  await phone.goto(page.url().replace(/#.*$/, ""));
  await phone.waitForFunction(() => window.tabletop.state && window.tabletop.state.status.over);
  await phone.getByRole("button", { name: "Review" }).click();
  await phone.locator("#review-graph circle").first().waitFor();
  assert.equal(await phone.locator("#moves .mark").count(), marked.length, "the same marks (the server's cached review)");
  await noSidewaysScroll(phone, "the review on a phone");
  await phone.getByRole("button", { name: /^After move 1, / }).tap().catch(() => phone.getByRole("button", { name: /^After move 1, / }).click());
  await phone.waitForFunction(() => window.tabletop.step === 1);
  await shot(phone, "review-connect3-phone");
});

// ---- between people: invite links, live, with a watcher ----

// The creator starts a game against "A friend"; the friend opens the invite link in another
// browser and a third browser opens the watch link.
// `otherBase`: the friend and the watcher open their links on another server process.
async function inviteGame(browser, base, game, { hints = false, setup, phone = false, otherBase } = {}) {
  const a = await person(browser);
  await a.goto(base);
  await a.click(`label:has(#game-${game})`);
  await a.click("label:has(#opponent-friend)");
  if (setup) await setup(a);
  if (hints) await a.check("#hints");
  await Promise.all([a.waitForURL(/\/game\/[0-9a-f]+$/), a.click("button[type=submit]")]);
  await a.locator("#board .cell").first().waitFor();
  const invite = a.locator("#invites input.link").first();
  const label = await a.locator("#invites .link-label").first().textContent();
  assert.match(label, /Send this to your opponent: they play (White|Orange|O|Player 2)/, label);
  await shot(a, `${game}-invite`);
  let inviteUrl = await invite.inputValue();
  assert.match(inviteUrl, /\/game\/[0-9a-f]+#invite=[0-9a-f]+$/);
  let watchUrl = await a.inputValue("#watch-link");
  if (otherBase) {
    const elsewhere = (url) => { const u = new URL(url); return otherBase + u.pathname.slice(1) + u.hash; };
    [inviteUrl, watchUrl] = [elsewhere(inviteUrl), elsewhere(watchUrl)];
  }
  const b = await person(browser, phone ? PHONE : DESKTOP);
  await b.goto(inviteUrl);
  await b.waitForFunction(() => window.tabletop.state && window.tabletop.tokens.some(Boolean));
  assert.doesNotMatch(b.url(), /#invite=/, "the invitation is taken out of the address bar");
  const c = await person(browser);
  await c.goto(watchUrl);
  await c.waitForFunction(() => !!window.tabletop.state);
  // The creator sees that the friend is connected.
  await a.waitForFunction(() => window.tabletop.state.players[1].connected, null, { timeout: 5000 });
  await a.locator(".player .presence.online").first().waitFor();
  return { a, b, c };
}

const latencies = [];

// The state as the server holds it now, fetched from `page` (as a watcher).
const serverState = (page) => page.evaluate(async () => (await fetch(`/api/games/${window.tabletop.id}`)).json());

test("invite: the creator checks their own link, the friend takes the seat, a third person opening it later watches", async ({ browser, base }) => {
  // The creator starts Connect Four against "A friend" from the start page.
  const a = await person(browser);
  await a.goto(base);
  await a.click("label:has(#game-connect)");
  await a.click("label:has(#opponent-friend)");
  await Promise.all([a.waitForURL(/\/game\/[0-9a-f]+$/), a.click("button[type=submit]")]);
  await a.locator("#board .cell").first().waitFor();
  const inviteUrl = await a.locator("#invites input.link").first().inputValue();
  assert.match(inviteUrl, /#invite=[0-9a-f]{32}$/);

  // The creator opens the link they are about to send, to check it, in a new tab and pasted into
  // the game's own tab: they keep X, and the link stays on show for them to copy.
  const check = await a.context().newPage();
  for (const tab of [check, a]) {
    await tab.goto(inviteUrl);
    await tab.locator("#invites .invite-note").waitFor();
    assert.equal(await tab.evaluate(() => window.tabletop.state.your_seat), 0);
    assert.equal(await tab.textContent("#invites .invite-note"), "This is the invitation you sent for O: opening it here leaves it for them. You play X.");
    assert.equal(await tab.locator("#invites input.link").first().inputValue(), inviteUrl, "the invite box stays for the creator to copy");
    assert.deepEqual(await tab.evaluate(() => window.tabletop.tokens.map(Boolean)), [true], "the creator holds X only");
    assert.equal((await serverState(tab)).players[1].invite, "unused");
    assert.doesNotMatch(tab.url(), /#invite=/, "the code is taken out of the address bar");
  }
  await shot(check, "invite-creator-checks-own-link");
  await check.close();

  // The friend opens it in another browser: they play O.
  const b = await person(browser);
  await b.goto(inviteUrl);
  await b.waitForFunction(() => window.tabletop.state && window.tabletop.state.your_seat === 1);
  assert.deepEqual(await b.evaluate(() => window.tabletop.tokens.map(Boolean)), [false, true]);
  assert.equal(await b.locator("#invites .invite-note").count(), 0, "no note for the person who took the seat");
  // The creator's page hears it: the link gives way to a line saying the friend came.
  await a.waitForFunction(() => window.tabletop.state.players[1].invite === "used");
  await a.locator("#invites", { hasText: "O opened your invitation and holds the seat." }).waitFor();
  assert.equal(await a.locator("#invites input.link").count(), 0, "a used link is no longer offered");
  assert.equal(await a.locator("#invites .invite-note").count(), 0, "the note about checking the link is gone with it");
  await shot(a, "invite-creator-after-friend-came");

  // A third person opening the same link later watches, and is told whose seat it is.
  const c = await person(browser);
  await c.goto(inviteUrl);
  await c.waitForFunction(() => !!window.tabletop.state);
  await c.locator("#invites .invite-note").waitFor();
  assert.equal(await c.textContent("#invites .invite-note"), "This invitation was already used: O is taken. You are watching.");
  assert.equal(await c.evaluate(() => window.tabletop.state.your_seat), null);
  assert.deepEqual(await c.evaluate(() => window.tabletop.tokens.filter(Boolean)), []);
  await shot(c, "invite-third-person-watches");

  // The two play; the third person sees it live and cannot move.
  await myTurn(a);
  await clickMove(a);
  await waitPly(b, 1);
  await myTurn(b);
  await clickMove(b, (n) => n - 1);
  for (const p of [a, c]) await waitPly(p, 2);
  const after = await serverState(c);
  assert.deepEqual(after.history.map((h) => h.seat), [0, 1], "the friend's move was O's");
  assert.equal(await c.textContent("#status"), "Waiting for X to move.", "the watcher is not offered a move");

  // The friend opening the link again (a new tab of their browser) keeps O.
  const again = await b.context().newPage();
  await again.goto(inviteUrl);
  await again.waitForFunction(() => window.tabletop.state && window.tabletop.state.your_seat === 1);
  assert.equal((await serverState(again)).version, after.version, "nothing was claimed again");
  await shot(b, "invite-friend");
});

test("invite: two people opening the link at the same moment: one plays White, the other watches; the creator's later check keeps Black", async ({ browser, base }) => {
  const a = await person(browser);
  await a.goto(base);
  await a.click("label:has(#game-reversi)");
  await a.click("label:has(#opponent-friend)");
  await Promise.all([a.waitForURL(/\/game\/[0-9a-f]+$/), a.click("button[type=submit]")]);
  await a.locator("#board .cell").first().waitFor();
  const inviteUrl = await a.locator("#invites input.link").first().inputValue();
  const [b, c] = [await person(browser), await person(browser)];
  await Promise.all([b.goto(inviteUrl), c.goto(inviteUrl)]);
  // Each page has settled: it holds White, or it says the seat is taken.
  const settled = () => window.tabletop.state && (window.tabletop.state.your_seat === 1 || !!document.querySelector("#invites .invite-note"));
  await Promise.all([b, c].map((p) => p.waitForFunction(settled)));
  const seats = await Promise.all([b, c].map((p) => p.evaluate(() => window.tabletop.state.your_seat)));
  assert.deepEqual([...seats].sort(), [1, null], `exactly one holds White: ${seats}`);
  const [winner, loser] = seats[0] === 1 ? [b, c] : [c, b];
  assert.equal(await loser.textContent("#invites .invite-note"), "This invitation was already used: White is taken. You are watching.");
  assert.deepEqual(await loser.evaluate(() => window.tabletop.tokens.filter(Boolean)), []);
  await shot(loser, "invite-race-loser-watches");
  await a.locator("#invites", { hasText: "White opened your invitation and holds the seat." }).waitFor();
  // The creator opens the used link: they keep Black, and nothing is stored.
  const version = (await serverState(a)).version;
  const check = await a.context().newPage();
  await check.goto(inviteUrl);
  await check.waitForFunction(() => window.tabletop.state && window.tabletop.state.your_seat === 0);
  assert.equal((await serverState(check)).version, version);
  assert.equal(await check.locator("#invites .invite-note").count(), 0);
  // The game goes on between the creator and the winner.
  await myTurn(a);
  await clickMove(a);
  await myTurn(winner);
  await shot(winner, "invite-race-winner");
});

// A game of `game` with every seat at this screen (one browser), started from the start page.
async function atThisScreen(browser, base, game) {
  const page = await person(browser);
  await page.goto(base);
  await page.click(`label:has(#game-${game})`);
  await page.click("label:has(#opponent-screen)");
  await Promise.all([page.waitForURL(/\/game\//), page.click("button[type=submit]")]);
  await page.locator("#board .cell").first().waitFor();
  return page;
}

// Plays moves chosen by `pick(page, turn)` (default: a click on a playable cell) until the game
// ends or `until` says stop; every move must reach the other player and the watcher live.
// Clicks a stepping button and waits until the page shows the position after `ply` moves (its
// board comes from the server).
async function stepTo(page, button, ply) {
  await page.click(button);
  await page.waitForFunction((n) => window.tabletop.step === n && window.tabletop.wantedStep === null, ply);
}

async function playLive(pages, { pick, until, maxTurns = 200 } = {}) {
  const { c } = pages;
  const seats = [pages.a, pages.b];
  for (let turn = 0; turn < maxTurns; turn++) {
    if (await isOver(pages.a)) return;
    if (until && (await until(turn))) return;
    // Every page shows the server's current position before the next move is chosen.
    const now = await pages.a.evaluate(async () => (await (await fetch(`/api/games/${window.tabletop.id}`)).json()).moves.length);
    await Promise.all([pages.a, pages.b, c].map((p) => p.waitForFunction((n) => window.tabletop.state.moves.length === n, now, { timeout: 2000 })));
    if (await isOver(pages.a)) return;
    const toMove = await pages.a.evaluate(() => window.tabletop.state.status.to_move);
    const mover = seats[toMove];
    const other = seats[1 - toMove];
    await myTurn(mover);
    const before = await ply(mover);
    const legal = await mover.evaluate(() => window.tabletop.state.legal);
    if (!(legal.length === 1 && legal[0] === "pass")) {
      if (pick) await pick(mover, turn); else await clickMove(mover, (n) => (turn * 5) % n);
    }
    await mover.waitForFunction((n) => window.tabletop.state.moves.length > n, before, { timeout: 10000 });
    const acknowledged = Date.now();
    // The watcher and the other person see the move without reloading, within a second.
    await Promise.all([other, c].map((p) => p.waitForFunction((n) => window.tabletop.state.moves.length > n, before, { timeout: 1000 })));
    latencies.push(Date.now() - acknowledged);
  }
}

test("reversi: two people play a whole game through an invite link, live, with a watcher", async ({ browser, base }) => {
  const pages = await inviteGame(browser, base, "reversi");
  const { a, b, c } = pages;
  assert.match(await a.textContent("#status"), /Your move \(Black\)/);
  assert.match(await b.textContent("#status"), /Waiting for Black/);
  assert.equal(await c.locator("#undo").isVisible(), false, "the watcher has no controls");
  assert.equal(await b.locator("#board .cell.playable").count(), 0, "White cannot move on Black's turn");
  assert.equal(await a.locator("#hint").isDisabled(), true, "no hints between people unless allowed");
  assert.equal(await a.locator("#analysis").isDisabled(), true, "no analysis between people unless allowed");
  await playLive(pages);
  for (const p of [a, b, c]) await p.locator("#result:not([hidden])").waitFor({ timeout: 5000 });
  const text = await c.textContent("#result");
  assert.match(text, /wins \(Black \d+, White \d+ discs\)|Draw/);
  const [ra, rb] = [await a.textContent("#result"), await b.textContent("#result")];
  if (!/Draw/.test(text)) assert.ok(/You won/.test(ra) !== /You won/.test(rb), `one winner: ${ra} / ${rb}`);
  // After the game: step back and forth through it on the board.
  await stepTo(c, "#step-first", 0);
  assert.equal(await c.locator("#board .disc").count(), 4, "the starting position");
  await stepTo(c, "#step-forward", 1);
  assert.equal(await c.locator("#board .disc").count(), 5);
  // Every position the pages received live matches its replay from the move list.
  for (const p of [a, b, c]) assert.deepEqual(await p.evaluate(() => window.tabletop.replayMismatches()), []);
  assert.ok(await c.evaluate(() => window.tabletop.seen.size) > 50, "the watcher saw the positions live");
  // The watcher analyses a position of the finished game, stepped back to it.
  await c.click("#step-last");
  for (let i = 0; i < 6; i++) await c.click("#step-back");
  await c.waitForFunction(() => window.tabletop.step !== null && window.tabletop.wantedStep === null && window.tabletop.state.moves.length - window.tabletop.step === 6);
  await c.click("#analysis");
  await c.waitForFunction(() => /Analysis \(best first\)/.test(document.querySelector("#advice").textContent), null, { timeout: 20000 });
  const analysed = await c.evaluate(() => [...window.tabletop.analysis.values()].find(Array.isArray).filter((m) => m.move !== "pass").length);
  assert.equal(await c.locator("#board .cell .val").count(), analysed, "each analysed move's value is on the board");
  // Each value sits at the foot of its cell, clear of the marks in the middle (a legal-move dot).
  const covering = await c.evaluate(() => [...document.querySelectorAll("#board .cell .val")].filter((v) => {
    const [box, cell] = [v.getBoundingClientRect(), v.closest(".cell").getBoundingClientRect()];
    return box.top < cell.top + cell.height * 0.63 || box.bottom > cell.bottom;
  }).map((v) => v.closest(".cell").dataset.key));
  assert.deepEqual(covering, [], "no value covers the middle of its cell");
  await shot(c, "reversi-people-watcher-analysis");
  await c.click("#analysis");
  await c.click("#step-last");
  await shot(a, "reversi-people-black");
  await shot(b, "reversi-people-white");
  await shot(c, "reversi-people-watcher");
  for (const p of [a, b, c]) assert.deepEqual(p.errors || [], []);
});

test("slide: people through an invite; a takeback declined, one accepted; the winning line", async ({ browser, base }) => {
  const pages = await inviteGame(browser, base, "slide", { phone: true });
  const { a, b, c } = pages;
  const square = (n) => async (page) => page.click(`#board [aria-label^="square ${n},"]`);
  const script = [1, 4];
  await playLive(pages, { pick: (page, turn) => square(script[turn])(page), until: (turn) => turn >= script.length });
  // Orange asks to take back 4; Blue declines.
  assert.equal(await b.textContent("#undo"), "Ask to take back");
  await b.click("#undo");
  await a.locator("#proposal #decline").waitFor({ timeout: 2000 });
  assert.match(await a.textContent("#proposal"), /Orange asks to take back/);
  await c.locator("#proposal:not([hidden])").waitFor({ timeout: 2000 });
  await a.click("#decline");
  await b.waitForFunction(() => !window.tabletop.state.proposal);
  assert.equal(await ply(a), 2);
  // Blue plays 2, then asks to take it back; Orange accepts.
  await playLive(pages, { pick: square(2), until: (turn) => turn >= 1 });
  await a.click("#undo");
  await b.locator("#proposal #accept").waitFor({ timeout: 2000 });
  await b.click("#accept");
  for (const p of [a, b, c]) await p.waitForFunction(() => window.tabletop.state.moves.length === 2, null, { timeout: 1000 });
  // Blue wins with the top row: 2, (Orange 5), 3.
  const rest = [2, 5, 3];
  await playLive(pages, { pick: (page, turn) => square(rest[turn])(page), until: (turn) => turn >= rest.length });
  for (const p of [a, b, c]) await p.locator("#result:not([hidden])").waitFor({ timeout: 2000 });
  assert.match(await c.textContent("#result"), /Blue wins/);
  assert.match(await a.textContent("#result"), /You won/);
  assert.match(await b.textContent("#result"), /You lost/);
  assert.equal(await c.locator("#board .cell.win").count(), 3, "the winning line is highlighted");
  await noSidewaysScroll(b, "slide, phone, after the game");
  for (const p of [a, b, c]) assert.deepEqual(await p.evaluate(() => window.tabletop.replayMismatches()), [], "stepping shows the positions played");
  await stepTo(c, "#step-first", 0);
  await stepTo(c, "#step-forward", 1);
  assert.match(await c.textContent("#step-pos"), /^Move 1 of \d+$/);
  await c.click("#step-last");
  await shot(c, "slide-people-watcher");
  await shot(b, "slide-people-phone");
});

test("connect: people through an invite, with hints allowed; the hint is shown on the board", async ({ browser, base }) => {
  const pages = await inviteGame(browser, base, "connect", { hints: true });
  const { a, b, c } = pages;
  const column = (n) => (page) => page.keyboard.press(String(n));
  const script = [1, 2, 1, 2, 1];
  await playLive(pages, { pick: (page, turn) => column(script[turn])(page), until: (turn) => turn >= 3 });
  // O asks for a hint: X threatens column 1.
  await myTurn(b);
  await b.click("#hint");
  await b.locator("#board .cell.hint").waitFor({ timeout: 20000 });
  assert.match(await b.textContent("#advice"), /Hint: \d \(.+\), marked on the board/);
  assert.equal(await b.locator("#message").textContent(), "", "the hint is not an error");
  await shot(b, "connect-people-hint");
  await playLive(pages, { pick: (page, turn) => column([2, 1, 3, 1][turn])(page) });
  for (const p of [a, b, c]) await p.locator("#result:not([hidden])").waitFor({ timeout: 2000 });
  assert.match(await c.textContent("#result"), /X wins/);
  assert.equal(await c.locator("#board .cell.win").count(), 4);
  for (const p of [a, b, c]) assert.deepEqual(await p.evaluate(() => window.tabletop.replayMismatches()), [], "stepping shows the positions played");
  await stepTo(c, "#step-first", 0);
  await stepTo(c, "#step-forward", 1);
  assert.match(await c.textContent("#step-pos"), /^Move 1 of \d+$/);
  await c.click("#step-last");
  await shot(c, "connect-people-watcher");
});

test("mathable: people through an invite; terminate proposed, declined, then accepted", async ({ browser, base }) => {
  const pages = await inviteGame(browser, base, "mathable");
  const { a, b, c } = pages;
  assert.equal(await c.locator(".rack").count(), 0, "the watcher sees no rack");
  assert.equal(await b.locator(".rack button").count(), 7);
  // Each plays two turns (a placement where one fits, then End turn).
  await playLive(pages, { until: (turn) => turn >= 12, pick: (page) => clickMove(page) }).catch(async (error) => {
    throw error;
  });
  const turns = await ply(a);
  assert.ok(turns >= 4, `some moves were played (${turns})`);
  // A proposes to end the game: B declines, then accepts the next proposal.
  await myTurn(a).catch(() => {});
  const proposer = (await a.evaluate(() => window.tabletop.state.status.to_move)) === 0 ? a : b;
  const answerer = proposer === a ? b : a;
  await proposer.click("#terminate");
  await confirm(proposer);
  await answerer.locator("#proposal #decline").waitFor({ timeout: 2000 });
  assert.match(await answerer.textContent("#proposal"), /proposes to end the game/);
  await answerer.click("#decline");
  await proposer.waitForFunction(() => !window.tabletop.state.proposal);
  await proposer.click("#terminate");
  await confirm(proposer);
  await answerer.locator("#proposal #accept").waitFor({ timeout: 2000 });
  await answerer.click("#accept");
  for (const p of [a, b, c]) await p.locator("#result:not([hidden])").waitFor({ timeout: 2000 });
  assert.match(await c.textContent("#result"), /points/);
  for (const p of [a, b, c]) assert.deepEqual(await p.evaluate(() => window.tabletop.replayMismatches()), [], "stepping shows the positions played");
  await stepTo(c, "#step-first", 0);
  await stepTo(c, "#step-forward", 1);
  assert.match(await c.textContent("#step-pos"), /^Move 1 of \d+$/);
  await c.click("#step-last");
  await shot(a, "mathable-people-player1");
  await shot(c, "mathable-people-watcher");
});

test("lobby: a game open to anyone is joined from the start page and leaves the lobby", async ({ browser, base }) => {
  const a = await person(browser);
  await a.goto(base);
  await shot(a, "start-page");
  await a.click("label:has(#game-reversi)");
  await a.click("label:has(#opponent-anyone)");
  await Promise.all([a.waitForURL(/\/game\//), a.click("button[type=submit]")]);
  await a.locator("#board .cell").first().waitFor();
  assert.match(await a.textContent("#invites"), /lobby/);
  const id = await a.evaluate(() => window.tabletop.id);
  const b = await person(browser, PHONE);
  await b.goto(base);
  const entry = b.locator("#lobby li", { hasText: "Reversi" });
  await entry.first().waitFor();
  await noSidewaysScroll(b, "start page with a lobby, phone");
  await shot(b, "start-page-phone");
  await Promise.all([b.waitForURL(/\/game\//), entry.first().getByRole("button", { name: /^Join/ }).click()]);
  await b.waitForFunction(() => window.tabletop.state && window.tabletop.state.your_seat === 1);
  await a.waitForFunction(() => window.tabletop.state.players[1].kind === "human" && window.tabletop.state.players[1].connected, null, { timeout: 2000 });
  const lobby = await (await fetch(base + "api/lobby")).json();
  assert.ok(!lobby.games.some((g) => g.id === id), "the game left the lobby");
  // The start page lists the games this browser holds a seat in.
  await b.goto(base);
  await b.locator("#my-games li", { hasText: "Reversi" }).waitFor();
  assert.equal(await b.locator("#my-games li").count(), 1);
});

test("at this screen: one browser holds both seats of a Connect Three game", async ({ browser, base }) => {
  const page = await person(browser);
  await page.goto(base);
  await page.click("label:has(#game-connect)");
  await page.click("label:has(#opponent-screen)");
  await page.click("#options-box summary");
  await page.selectOption("#connect-preset", "connect3");
  await Promise.all([page.waitForURL(/\/game\//), page.click("button[type=submit]")]);
  await page.locator("#board .cell").first().waitFor();
  assert.equal(await page.locator("#board .cell").count(), 12);
  for (const [i, column] of ["1", "2", "1", "2", "1"].entries()) {
    await page.getByRole("button", { name: new RegExp(`^column ${column}, .*drop here`) }).first().click();
    await waitPly(page, i + 1);
  }
  await page.locator("#result:not([hidden])").waitFor();
  assert.match(await page.textContent("#result"), /X wins/);
});

test("slide at this screen: the slide phase; a chosen tile looks unlike the last move", async ({ browser, base }) => {
  const page = await person(browser);
  await page.goto(base);
  await page.click("label:has(#opponent-screen)");
  await Promise.all([page.waitForURL(/\/game\//), page.click("button[type=submit]")]);
  await page.locator("#board .cell").first().waitFor();
  // Eight placements without a line leave one square empty: then tiles slide.
  for (const [i, square] of [1, 2, 3, 5, 4, 7, 8, 6].entries()) {
    await page.click(`#board [aria-label^="square ${square}, empty"]`);
    await waitPly(page, i + 1);
  }
  await page.waitForFunction(() => window.tabletop.state.board.phase === "slide");
  assert.match(await page.textContent("#help"), /Choose one of your tiles to slide/);
  const source = page.locator("#board .cell.playable:not(.legal)").first();
  await source.click();
  await page.locator("#board .cell.selected").waitFor();
  assert.match(await page.locator("#board .cell.selected").getAttribute("aria-label"), /blue tile, selected/);
  assert.equal(await page.locator("#board .cell.selected.last").count(), 0);
  await shot(page, "slide-selected-tile");
  await page.locator("#board .cell.legal.playable").first().click();
  await waitPly(page, 9);
  assert.equal(await page.evaluate(() => window.tabletop.state.history[8].move.includes("-")), true);
});

test("mathable at this screen: each player sees their own rack on their turn", async ({ browser, base }) => {
  const page = await atThisScreen(browser, base, "mathable");
  const rack = () => page.evaluate(() => JSON.stringify(window.tabletop.state.board.racks[window.tabletop.state.your_seat]));
  const first = await rack();
  await clickMove(page);
  await page.waitForFunction(() => window.tabletop.state.status.to_move === 1 && window.tabletop.state.your_seat === 1);
  assert.equal(await page.locator(".rack button").count(), 7, "Player 2's rack is shown");
  assert.notEqual(await rack(), first);
  assert.match(await page.textContent("#status"), /Player 2 to move/);
});

// A live state redraws the controls; arriving between a press and its release it made the
// release land on a new button and the click was lost (CI once lost a Mathable "End turn" so).
test("a press and its release reach the same control when a live state redraws the page between them", async ({ browser, base }) => {
  const page = await atThisScreen(browser, base, "mathable");
  await myTurn(page);
  const endTurn = page.locator("#end-turn");
  assert.ok(await endTurn.isEnabled(), "End turn is offered at the start of a turn");
  const box = await endTurn.boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.evaluate(() => window.tabletop.redraw());
  await page.mouse.up();
  await waitPly(page, 1, 5000);
  assert.deepEqual(await page.evaluate(() => window.tabletop.state.moves), ["end"]);
});

test("connect at this screen: Undo takes the last move back at once (nobody else is asked)", async ({ browser, base }) => {
  const page = await atThisScreen(browser, base, "connect");
  for (const n of [1, 2]) {
    await clickMove(page);
    await waitPly(page, n);
  }
  assert.equal((await page.textContent("#undo")).trim(), "Undo", "one screen holds every seat: no request to ask");
  const before = await page.evaluate(() => window.tabletop.state.moves.slice());
  await page.click("#undo");
  await page.waitForFunction(() => window.tabletop.state.moves.length === 1 && !window.tabletop.state.proposal);
  assert.deepEqual(await page.evaluate(() => window.tabletop.state.moves), before.slice(0, 1));
  assert.equal(await page.locator("#proposal").isVisible(), false, "no proposal is left to answer");
});

// Gomoku's page module alone, on sample boards of the server's JSON in three sizes (7, 15, 19):
// the live game is covered by the catalog's tests and the at-this-screen test below.
test("gomoku page module: the server's board JSON drawn, named and playable, on a phone and a desktop", async ({ browser, base }) => {
  for (const [viewport, where] of [[PHONE, "phone"], [DESKTOP, "desktop"]]) {
    for (const size of [15, 19, 7]) {
      const page = await person(browser, viewport);
      await page.goto(base);
      await page.locator("#game-choice input").first().waitFor();
      // Black's five from d4 to h8 (the last move), White's stones beside them.
      const drawn = await page.evaluate(async (size) => {
        const module = await import("/js/games/gomoku.js");
        const link = document.createElement("link");
        link.rel = "stylesheet";
        link.href = "/js/games/gomoku.css";
        await new Promise((resolve, reject) => { link.onload = resolve; link.onerror = reject; document.head.append(link); });
        const stones = size >= 8 ? { d4: "x", e5: "x", f6: "x", g7: "x", h8: "x", d5: "o", e6: "o", f7: "o", g8: "o" } : { a7: "o", g1: "x" };
        const names = Array.from({ length: size * size }, (_, i) => module.pointName(i, size));
        const board = { size, cells: names.map((n) => stones[n] || ""), last_move: size >= 8 ? "h8" : "g1", winning_line: size >= 8 ? ["d4", "e5", "f6", "g7", "h8"] : [] };
        window.played = [];
        const state = { status: { over: false, to_move: 1 }, history: [], players: [], board };
        const ctx = {
          state, board, playable: true, legal: names.filter((n) => !stones[n]), ui: {}, hint: null, analysis: null, replaying: false,
          viewSeat: 1, seated: true, nameOf: (seat) => ["Black", "White"][seat], play: (move) => window.played.push(move), rerender: () => {}, terminate: () => {},
        };
        const out = module.render(ctx);
        const area = document.createElement("div");
        area.id = "board";
        area.className = "board-area gomoku";
        area.append(out.board);
        // Beside the start page, not in it: the page's own scripts keep updating their elements.
        const main = document.querySelector("main");
        main.hidden = true;
        main.after(area);
        return { names: names.slice(0, 2), help: out.help, title: module.title({ size }) };
      }, size);
      assert.deepEqual(drawn.names, ["a" + size, "b" + size], "cells run row by row from the top-left point");
      assert.equal(drawn.title, `Gomoku (${size} x ${size})`);
      assert.equal(await page.locator("#board .cell").count(), size * size);
      const letters = "abcdefghijklmnopqrs".slice(0, size);
      assert.equal(await page.locator("#board .coord.col").allTextContents().then((t) => t.join("")), letters);
      assert.deepEqual(await page.locator("#board .coord.row").allTextContents(), Array.from({ length: size }, (_, r) => String(size - r)));
      assert.deepEqual(await unnamedControls(page), [], "every point has a name");
      const labels = await page.locator("#board .cell").evaluateAll((cells) => cells.map((c) => c.getAttribute("aria-label")));
      for (const label of labels) assert.match(label, new RegExp(`^[${letters}]\\d+, (empty|black stone|white stone)`), label);
      assert.equal(labels[size * (size - 1)], "a1, empty", "the bottom-left point is a1");
      if (size >= 8) {
        assert.equal(await page.getAttribute('#board [data-key="h8"]', "aria-label"), "h8, black stone, last move, winning line");
        assert.equal(await page.getAttribute('#board [data-key="d5"]', "aria-label"), "d5, white stone");
        assert.equal(await page.locator("#board .cell.win").count(), 5, "the winning line is marked");
        assert.equal(await page.locator("#board .cell.last").count(), 1, "the last move is marked");
        assert.equal(await page.locator('#board .cell.last[data-key="h8"]').count(), 1);
      } else {
        assert.equal(await page.getAttribute('#board [data-key="g1"]', "aria-label"), "g1, black stone, last move");
        assert.equal(await page.getAttribute('#board [data-key="a7"]', "aria-label"), "a7, white stone");
      }
      // A stone is not playable; an empty point plays its name.
      await page.click('#board [data-key="a1"]');
      await page.click(`#board [data-key="${size >= 8 ? "h8" : "g1"}"]`, { force: true });
      assert.deepEqual(await page.evaluate(() => window.played), ["a1"]);
      await noSidewaysScroll(page, `gomoku ${size} x ${size}, ${where}`);
      const width = await page.locator("#board .cell").first().evaluate((c) => c.getBoundingClientRect().width);
      assert.ok(width >= 24, `gomoku ${size} x ${size} points are ${width} px wide on a ${where}`);
      if (where === "phone" && size === 15) {
        // 15 x 15 fits a 390 px phone whole; 19 x 19 scrolls inside its own box.
        assert.equal(await page.locator(".g-scroll").evaluate((box) => box.scrollWidth <= box.clientWidth), true, "15 x 15 fits the phone");
      }
      await shot(page, `gomoku-sample-${size}-${where}`);
    }
  }
});

// Gomoku on the game page, from the start page, one phone holding both seats: Black completes
// five in a row with a tap on each point; the server judges every move.
test("gomoku at this screen, on a phone: points named and tapped, the last move and the winning line, the stepping", async ({ browser, base }) => {
  const n = 15;
  const opening = ["d4", "d5", "e5", "e6", "f6", "f7", "g7", "g8"];
  const page = await person(browser, PHONE);
  await page.goto(base);
  await page.click("label:has(#game-gomoku)");
  await page.click("label:has(#opponent-screen)");
  await Promise.all([page.waitForURL(/\/game\//), page.click("button[type=submit]")]);
  await page.locator('#board [data-key="h8"]').waitFor();
  assert.equal(await page.textContent("#game-title"), "Gomoku (15 x 15)");
  for (const [i, point] of opening.entries()) {
    await page.click(`#board [data-key="${point}"]`);
    await waitPly(page, i + 1);
  }
  assert.match(await page.textContent("#status"), /Black/);
  assert.equal(await page.getAttribute('#board [data-key="h8"]', "aria-label"), "h8, empty");
  assert.equal(await page.getAttribute('#board [data-key="g8"]', "aria-label"), "g8, white stone, last move");
  assert.equal(await page.locator("#board .cell.playable").count(), n * n - opening.length, "every empty point is playable");
  // The game's stylesheet is in: the players' swatches have their stones' colours.
  assert.equal(await page.locator(".swatch.seat0").evaluate((e) => getComputedStyle(e).backgroundColor), "rgb(17, 17, 17)");
  assert.deepEqual(await unnamedControls(page), [], "every control on the Gomoku page has a name");
  await noSidewaysScroll(page, "gomoku game page, phone");
  const width = await page.locator('#board [data-key="h8"]').evaluate((c) => c.getBoundingClientRect().width);
  assert.ok(width >= 24, `Gomoku's points are ${width} px wide on a phone`);
  await shot(page, "gomoku-game-phone");
  await page.click('#board [data-key="h8"]');
  await page.waitForFunction(() => window.tabletop.state.status.over);
  await page.locator("#result:not([hidden])").waitFor();
  assert.equal((await page.textContent("#result")).trim(), "Black wins: five in a row.");
  assert.equal(await page.getAttribute('#board [data-key="h8"]', "aria-label"), "h8, black stone, last move, winning line");
  assert.equal(await page.locator("#board .cell.win").count(), 5, "the winning line is marked");
  assert.equal(await page.locator("#board .cell.playable").count(), 0, "nothing to play once it is over");
  await shot(page, "gomoku-game-phone-over");
  // Stepping through the finished game: the first position is empty, then d4 is Black's.
  await stepTo(page, "#step-first", 0);
  assert.equal(await page.locator("#board .cell.x, #board .cell.o").count(), 0);
  await stepTo(page, "#step-forward", 1);
  assert.equal(await page.getAttribute('#board [data-key="d4"]', "aria-label"), "d4, black stone, last move");
  assert.deepEqual(await page.evaluate(() => window.tabletop.replayMismatches()), [], "stepping shows the positions received");
  await noSidewaysScroll(page, "gomoku game page over, phone");
});

// ---- the generic grid module (js/games/grid.js): a grid game with no JavaScript of its own ----

// A catalog entry for a game the grid module draws, as the server lists one.
const GRID_ENTRY = {
  name: "gridsample", title: "Grid Sample", about: "k in a row on a board of any size", module: "grid", seats: 2,
  options: [
    { key: "m", label: "Columns", kind: { type: "integer", min: 1, max: 20, default: 3 } },
    { key: "rule", label: "Rule", kind: { type: "choice", choices: [["free", "Free-style"], ["exact", "Exactly k"]], default: "free" } },
  ],
  players: [{ name: "engine", settings: [], help: "" }, { name: "human", settings: [], help: "" }],
};

// The library's grid board JSON for a `cols` x `rows` board with `pieces` ({name: "x" | "o"}).
function gridBoard(cols, rows, pieces, last, line) {
  const letters = "abcdefghijklmnopqrstuvwxyz".slice(0, cols).split("");
  const names = Array.from({ length: rows * cols }, (_, i) => letters[i % cols] + (rows - Math.floor(i / cols)));
  return {
    rows, cols, cells: names.map((n) => pieces[n] || ""), seats: ["x", "o"], names,
    col_labels: letters, row_labels: Array.from({ length: rows }, (_, r) => String(rows - r)), last, line,
  };
}

test("grid page module: a grid board JSON drawn, named and playable, on a phone and a desktop", async ({ browser, base }) => {
  for (const [viewport, where] of [[PHONE, "phone"], [DESKTOP, "desktop"]]) {
    for (const size of [3, 15, 20]) {
      const page = await person(browser, viewport);
      await page.goto(base);
      await page.locator("#game-choice input").first().waitFor();
      // X's diagonal from a1 (the last move) up and right, O's pieces beside it.
      const pieces = { a1: "x", b2: "x", c3: "x", a2: "o", b3: "o" };
      const board = gridBoard(size, size, pieces, ["a1"], ["a1", "b2", "c3"]);
      const drawn = await page.evaluate(async ({ entry, board }) => {
        const game = (await import("/js/games/grid.js")).forGame(entry);
        const link = document.createElement("link");
        link.rel = "stylesheet";
        link.href = "/js/games/grid.css";
        await new Promise((resolve, reject) => { link.onload = resolve; link.onerror = reject; document.head.append(link); });
        window.played = [];
        const state = { status: { over: false, to_move: 1 }, history: [], players: [], board };
        const ctx = {
          state, board, playable: true, legal: board.names.filter((n, i) => !board.cells[i]), ui: {}, hint: null, analysis: null, replaying: false,
          viewSeat: 1, seated: true, nameOf: (seat) => ["X", "O"][seat], play: (move) => window.played.push(move), rerender: () => {}, terminate: () => {},
        };
        const out = game.render(ctx);
        const area = document.createElement("div");
        area.id = "board";
        area.className = `board-area ${entry.name} ${game.styleClass}`;
        area.append(out.board);
        const main = document.querySelector("main");
        main.hidden = true;
        main.after(area);
        return { help: out.help, key: game.boardKey(board), title: game.title({ m: board.cols, rule: "exact" }), plain: game.title({ m: 3, rule: "free" }), seats: game.seats({}) };
      }, { entry: GRID_ENTRY, board });
      assert.equal(drawn.title, "Grid Sample" + (size === 3 ? " (Exactly k)" : ` (Columns ${size}, Exactly k)`), "the title names the options that differ from the defaults");
      assert.equal(drawn.plain, "Grid Sample");
      assert.equal(drawn.seats, 2);
      assert.match(drawn.help, /empty cell/);
      assert.equal(await page.locator("#board .cell").count(), size * size);
      assert.equal(await page.locator("#board .coord.col").allTextContents().then((t) => t.join("")), board.col_labels.join(""));
      assert.deepEqual(await page.locator("#board .coord.row").allTextContents(), board.row_labels);
      assert.deepEqual(await unnamedControls(page), [], "every cell has a name");
      assert.equal(await page.getAttribute('#board [data-key="a1"]', "aria-label"), "a1, X, last move, winning line");
      assert.equal(await page.getAttribute('#board [data-key="c3"]', "aria-label"), "c3, X, winning line");
      assert.equal(await page.getAttribute('#board [data-key="a2"]', "aria-label"), "a2, O");
      assert.equal(await page.getAttribute('#board [data-key="b1"]', "aria-label"), "b1, empty");
      assert.equal(await page.locator("#board .cell.win").count(), 3, "the winning line is marked");
      assert.equal(await page.locator("#board .cell.last").count(), 1, "the last move is marked");
      // Pieces are coloured by seat.
      const colour = (key) => page.locator(`#board [data-key="${key}"] .piece`).evaluate((e) => getComputedStyle(e).color);
      assert.equal(await colour("b2"), "rgb(0, 114, 178)");
      assert.equal(await colour("a2"), "rgb(213, 94, 0)");
      // A taken cell is not playable; an empty one plays its name, by a click and by the keyboard.
      await page.click('#board [data-key="b1"]');
      await page.click('#board [data-key="a1"]', { force: true });
      await page.locator('#board [data-key="b1"]').focus();
      await page.keyboard.press("ArrowRight");
      await page.keyboard.press("Enter");
      assert.deepEqual(await page.evaluate(() => window.played), ["b1", "c1"]);
      await noSidewaysScroll(page, `grid ${size} x ${size}, ${where}`);
      const width = await page.locator("#board .cell").first().evaluate((c) => c.getBoundingClientRect().width);
      assert.ok(width >= (size <= 15 ? 22 : 20), `grid ${size} x ${size} cells are ${width} px wide on a ${where}`);
      const fits = await page.locator(".gg-scroll").evaluate((box) => box.scrollWidth <= box.clientWidth);
      // Up to 15 x 15 the board fits a 390 px phone whole; a wider one scrolls inside its own box.
      if (size <= 15 || where === "desktop") assert.equal(fits, true, `${size} x ${size} fits the ${where}`);
      if (size === 3) assert.ok(width <= 120, `a 3 x 3 board stays small (${width} px cells)`);
      await shot(page, `grid-sample-${size}-${where}`);
    }
  }
});

test("start page: a game the catalog names the grid module for is offered with its options from the catalog", async ({ browser, base }) => {
  const page = await person(browser, PHONE);
  await page.route("**/api/catalog", async (route) => {
    const response = await route.fetch();
    const catalog = await response.json();
    catalog.games.push(GRID_ENTRY);
    await route.fulfill({ response, json: catalog });
  });
  await page.goto(base);
  await page.locator("#game-gridsample").waitFor({ state: "attached" });
  assert.equal(await page.textContent("#start-error"), "", "nothing reported");
  await page.click("label:has(#game-gridsample)");
  assert.match(await page.textContent("label:has(#game-gridsample)"), /Grid Sample.*k in a row on a board of any size/s);
  await page.click("#options-box summary");
  assert.equal(await page.inputValue("#gridsample-m"), "3");
  assert.equal(await page.getAttribute("#gridsample-m", "max"), "20");
  assert.equal(await page.inputValue("#gridsample-rule"), "free");
  assert.deepEqual(await page.locator("#gridsample-rule option").allTextContents(), ["Free-style", "Exactly k"]);
  assert.equal(await page.getByRole("spinbutton", { name: /^Columns\b/ }).getAttribute("id"), "gridsample-m", "each option is labelled");
  assert.equal(await page.getByRole("combobox", { name: /^Rule\b/ }).getAttribute("id"), "gridsample-rule", "each option is labelled");
  assert.deepEqual(await unnamedControls(page), [], "every control on the start page has a name");
  await noSidewaysScroll(page, "start page with a grid game");
  // A number out of its range is refused by the form itself; what Start sends is what was chosen.
  await page.fill("#gridsample-m", "99");
  assert.equal(await page.locator("#gridsample-m:invalid").count(), 1, "99 columns is out of range");
  await page.fill("#gridsample-m", "7");
  await page.selectOption("#gridsample-rule", "exact");
  const sent = page.waitForRequest((r) => r.url().endsWith("/api/games") && r.method() === "POST");
  await page.click("button[type=submit]");
  const body = JSON.parse((await sent).postData());
  assert.deepEqual(body.options, { m: 7, rule: "exact" });
  assert.equal(body.seats.length, 2);
  // This server has no such game: it says so.
  await page.waitForFunction(() => document.getElementById("start-error").textContent !== "");
  assert.match(await page.textContent("#start-error"), /gridsample/);
  // (A full-page screenshot moves the start page under the pointer: taken last.)
  await shot(page, "start-page-grid-phone");
});

// m,n,k between two people, each in a browser of their own, with a watcher: every move a click
// on a cell; X completes the diagonal a1-b2-c3 and the line is marked on every page.
test("mnk: two people through an invite link play tic-tac-toe by clicking cells, live, with a watcher; X's diagonal wins", async ({ browser, base }) => {
  const pages = await inviteGame(browser, base, "mnk");
  const { a, b, c } = pages;
  const moves = ["a1", "a2", "b2", "a3", "c3"];
  await playLive(pages, { pick: (page, turn) => page.click(`#board [data-key="${moves[turn]}"]`), maxTurns: moves.length + 1 });
  for (const p of [a, b, c]) {
    await p.waitForFunction(() => window.tabletop.state.status.over);
    await p.locator("#result:not([hidden])").waitFor();
    assert.equal(await p.getAttribute('#board [data-key="c3"]', "aria-label"), "c3, X, last move, winning line");
    assert.equal(await p.getAttribute('#board [data-key="a2"]', "aria-label"), "a2, O");
    assert.equal(await p.locator("#board .cell.win").count(), 3, "the winning line is marked");
    assert.equal(await p.locator("#board .cell.playable").count(), 0, "nothing to play once it is over");
  }
  assert.deepEqual(await a.evaluate(() => window.tabletop.state.moves), moves);
  assert.match(await a.textContent("#result"), /X wins.*You won\./s);
  assert.match(await b.textContent("#result"), /X wins.*You lost\./s);
  assert.deepEqual(await unnamedControls(b), [], "every control on the m,n,k page has a name");
  await shot(a, "mnk-people-x");
  await shot(b, "mnk-people-o");
  await shot(c, "mnk-people-watcher");
  // Stepping back: after the first move only a1 is taken.
  await stepTo(c, "#step-first", 0);
  await stepTo(c, "#step-forward", 1);
  assert.equal(await c.getAttribute('#board [data-key="a1"]', "aria-label"), "a1, X, last move");
  assert.equal(await c.locator("#board .cell.taken").count(), 1);
  assert.deepEqual(await c.evaluate(() => window.tabletop.replayMismatches()), [], "stepping shows the positions received");
});

// m,n,k on a phone at 15 x 15 (its largest board), chosen in the start page's options form: the
// whole board fits the 390 px screen and every cell is tapped where it is.
test("mnk on a phone, at this screen: a 15 x 15 board from the options form fits the screen; five in a row wins", async ({ browser, base }) => {
  const page = await person(browser, PHONE);
  await page.goto(base);
  await page.click("label:has(#game-mnk)");
  await page.click("label:has(#opponent-screen)");
  await page.click("#options-box summary");
  assert.equal(await page.inputValue("#mnk-m"), "3");
  await page.fill("#mnk-m", "15");
  await page.fill("#mnk-n", "15");
  await page.fill("#mnk-k", "5");
  await Promise.all([page.waitForURL(/\/game\//), page.click("button[type=submit]")]);
  await page.locator('#board [data-key="h8"]').waitFor();
  assert.match(await page.textContent("#game-title"), /^m,n,k-game \(.*15.*15.*5.*\)$/);
  assert.equal(await page.locator("#board .cell").count(), 225);
  await noSidewaysScroll(page, "mnk 15 x 15, phone");
  assert.equal(await page.locator(".gg-scroll").evaluate((box) => box.scrollWidth <= box.clientWidth), true, "15 x 15 fits the phone");
  const width = await page.locator('#board [data-key="h8"]').evaluate((c) => c.getBoundingClientRect().width);
  assert.ok(width >= 22, `the cells are ${width} px wide on a phone`);
  const opening = ["d4", "d5", "e5", "e6", "f6", "f7", "g7", "g8", "h8"];
  for (const [i, name] of opening.entries()) {
    await page.click(`#board [data-key="${name}"]`);
    await waitPly(page, i + 1);
  }
  await page.waitForFunction(() => window.tabletop.state.status.over);
  await page.locator("#result:not([hidden])").waitFor();
  assert.match(await page.textContent("#result"), /X wins/);
  assert.equal(await page.locator("#board .cell.win").count(), 5, "the winning line is marked");
  assert.equal(await page.getAttribute('#board [data-key="h8"]', "aria-label"), "h8, X, last move, winning line");
  assert.deepEqual(await unnamedControls(page), [], "every control has a name");
  await noSidewaysScroll(page, "mnk 15 x 15 over, phone");
  await shot(page, "mnk-15-phone-over");
});

// The start page builds itself from whatever the catalog says: here the server's catalog with a
// game added on the way that the page has no module for.
test("start page: a listed game without a page module is reported, the others offered; Gomoku's card and options", async ({ browser, base }) => {
  const page = await person(browser, PHONE);
  await page.route("**/api/catalog", async (route) => {
    const response = await route.fetch();
    const catalog = await response.json();
    const kinds = [{ name: "engine", settings: [], help: "" }, { name: "random", settings: ["seed"], help: "" }, { name: "human", settings: [], help: "" }];
    catalog.games.push({ name: "nosuchgame", title: "No Such Game", about: "none", players: kinds });
    await route.fulfill({ response, json: catalog });
  });
  await page.goto(base);
  await page.locator("#game-gomoku").waitFor({ state: "attached" });
  assert.match(await page.textContent("#start-error"), /No Such Game cannot be offered/);
  assert.equal(await page.locator("#game-nosuchgame").count(), 0);
  const real = (await (await fetch(base + "api/catalog")).json()).games.length;
  assert.equal(await page.locator("#game-choice input").count(), real, "every other game is offered");
  await page.click("label:has(#game-gomoku)");
  // Only the computers the server lists for the game are offered.
  const offered = await page.getByLabel("Computer strength").locator("option").allTextContents();
  assert.deepEqual([offered[0], offered[4], ...offered.slice(10)], ["Beginner (level 1)", "Club (level 5)", "Full strength (engine)", "Random moves"]);
  await page.click("#options-box summary");
  assert.equal(await page.inputValue("#gomoku-size"), "15");
  assert.deepEqual(await unnamedControls(page), [], "every control on the start page has a name");
  await noSidewaysScroll(page, "start page with Gomoku");
  await shot(page, "start-page-gomoku-phone");
  // The module and stylesheet that are not there were asked for once, and that is all.
  // (Whether the browser reports the stylesheet's 404 as well depends on its checks of the
  // answer's type under nosniff; the module's is always reported.)
  const missing = (page.missing || []).map((url) => new URL(url).pathname);
  assert.ok(missing.includes("/js/games/nosuchgame.js"), missing.join(" "));
  assert.deepEqual(missing.filter((path) => !path.startsWith("/js/games/nosuchgame.")), [], "nothing else is missing");
  page.missing = [];
});

test("a link to no game says so", async ({ browser, base }) => {
  const page = await person(browser);
  const missing = [];
  page.on("response", (r) => { if (r.status() === 404) missing.push(r.url()); });
  await page.goto(base + "game/0123456789abcdef0123456789abcdef");
  await page.locator("#game-title", { hasText: "No such game" }).waitFor();
  page.missing = []; // the one 404 expected: the game's state
  assert.equal(missing.length, 1);
});

test("live: the page reconnects by itself after a server restart and shows the current state", async ({ browser }) => {
  const first = await startServer();
  const base = first.base;
  const page = await person(browser);
  const created = await (await fetch(base + "api/games", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ game: "connect", seats: ["human", "human"] }) })).json();
  await page.goto(base + created.invites[1].path.slice(1));
  await page.waitForFunction(() => !!window.tabletop.state);
  first.server.kill();
  await new Promise((resolve) => first.server.once("exit", resolve));
  await page.locator("#link-state", { hasText: "Reconnecting" }).waitFor({ timeout: 5000 });
  const second = await startServer({ addr: first.addr, db: first.db });
  try {
    const move = await fetch(base + `api/games/${created.id}/moves`, { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ move: "4", token: created.tokens[0] }) });
    assert.equal(move.status, 200);
    await page.waitForFunction(() => window.tabletop.state.moves.length === 1, null, { timeout: 10000 });
    assert.equal(await page.textContent("#link-state"), "");
    // The status line is drawn with the state (before the game's module, whose first fetch the
    // restart may have cut off, is loaded again): read at once it was empty in a CI run.
    assert.match(await page.textContent("#status"), /Your move \(O\)/);
    // And the board comes back with the module.
    await page.locator("#board .cell").first().waitFor({ timeout: 10000 });
  } finally {
    second.server.kill();
  }
});

test("live: a game's page module whose loading was cut off is asked for again; the board is drawn", async ({ browser, base }) => {
  const page = await person(browser);
  const asked = [];
  // The connection drops while the game's module is on its way, once.
  await page.route(/\/js\/games\/connect\.js(\?.*)?$/, (route) => {
    asked.push(route.request().url());
    return asked.length === 1 ? route.abort("connectionreset") : route.continue();
  });
  const created = await (await fetch(base + "api/games", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ game: "connect", seats: ["human", "human"] }) })).json();
  await page.goto(base + created.invites[1].path.slice(1));
  await page.locator("#board .cell").first().waitFor({ timeout: 10000 });
  assert.ok(asked.length >= 2, `the module was asked for again (${asked.join(", ")})`);
  await page.waitForFunction(() => window.tabletop.linked === true);
  assert.equal(await page.textContent("#message"), "");
  // A move by the other person arrives and is drawn.
  const move = await fetch(base + `api/games/${created.id}/moves`, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ move: "4", token: created.tokens[0] }) });
  assert.equal(move.status, 200);
  await page.waitForFunction(() => window.tabletop.state.moves.length === 1);
  assert.match(await page.textContent("#status"), /Your move/);
});

test("live: the answer to a move, arriving after a newer live state, does not undo it: the friend who came back stays online", async ({ browser, base }) => {
  const { a, b } = await inviteGame(browser, base, "connect");
  const friendUrl = b.url();
  await b.close();
  await a.waitForFunction(() => window.tabletop.state.players[1].connected === false);
  // The answer to the creator's move is held until the friend is back.
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  await a.route(/\/api\/games\/[0-9a-f]+\/moves$/, async (route) => {
    const response = await route.fetch();
    await held;
    await route.fulfill({ response });
  });
  const answers = await a.evaluate(() => window.tabletop.answers);
  await clickMove(a);
  await a.waitForFunction(() => window.tabletop.state.moves.length === 1);
  const back = await b.context().newPage();
  await back.goto(friendUrl);
  await a.waitForFunction(() => window.tabletop.state.players[1].connected === true);
  release();
  await a.waitForFunction((n) => window.tabletop.answers > n, answers);
  assert.equal(await a.evaluate(() => window.tabletop.state.players[1].connected), true, "the held answer (friend offline) replaced the live state");
  assert.equal(await a.locator(".player .presence.online").count(), 1);
  assert.equal(await a.evaluate(() => window.tabletop.state.moves.length), 1);
});

test("live: a move made while the server is down is sent when it is back; presence unknown meanwhile (creator, friend, watcher)", async ({ browser }) => {
  const first = await startServer();
  const { a, b, c } = await inviteGame(browser, first.base, "connect");
  first.server.kill();
  await new Promise((resolve) => first.server.once("exit", resolve));
  let second = null;
  try {
    await a.locator("#link-state", { hasText: "Reconnecting" }).waitFor({ timeout: 10000 });
    // Nobody can tell whether the friend is still there: the page says so instead of "online".
    await a.locator(".player .presence", { hasText: "status unknown" }).waitFor();
    assert.equal(await a.locator(".player .presence.online").count(), 0);
    await clickMove(a);
    await a.locator("#message", { hasText: "will be sent again" }).waitFor({ timeout: 10000 });
    assert.equal(await a.evaluate(() => window.tabletop.state.moves.length), 0);
    second = await startServer({ addr: first.addr, db: first.db });
    // The move goes out by itself once the connection is back; the friend and the watcher see it.
    for (const p of [a, b, c]) await p.waitForFunction(() => window.tabletop.state.moves.length === 1, null, { timeout: 20000 });
    await a.waitForFunction(() => document.querySelector("#message").textContent === "" && document.querySelector("#link-state").textContent === "");
    await a.locator(".player .presence.online").first().waitFor({ timeout: 10000 });
    await shot(a, "reconnected-creator");
  } finally {
    if (second) second.server.kill();
  }
});

test("two server processes on one PostgreSQL database: the friend and the watcher on the other process play live", async ({ browser }) => {
  const admin = process.env.TABLETOP_TEST_PG;
  assert.ok(admin, "TABLETOP_TEST_PG names a PostgreSQL server (scripts/test starts one)");
  const name = `browser_${process.pid}_${Date.now()}`;
  execFileSync("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", admin, "-c", `CREATE DATABASE ${name}`]);
  const url = admin.replace(/\/[^/]*$/, `/${name}`);
  const [one, two] = [await startServer({ db: url }), await startServer({ db: url })];
  try {
    const pages = await inviteGame(browser, one.base, "connect", { otherBase: two.base });
    const { a, b, c } = pages;
    assert.ok(b.url().startsWith(two.base) && c.url().startsWith(two.base), "the friend and the watcher are on the second process");
    // The friend's page (second process) shows the creator (first process) online.
    await b.waitForFunction(() => window.tabletop.state.players[0].connected, null, { timeout: 3000 });
    assert.match(await a.textContent("#status"), /Your move/);
    await playLive(pages);
    for (const p of [a, b, c]) await p.locator("#result:not([hidden])").waitFor({ timeout: 5000 });
    const [ra, rb] = [await a.textContent("#result"), await b.textContent("#result")];
    if (!/Draw/.test(ra)) assert.ok(/You won/.test(ra) !== /You won/.test(rb), `one winner: ${ra} / ${rb}`);
    for (const p of [a, b, c]) assert.deepEqual(await p.evaluate(() => window.tabletop.replayMismatches()), []);
    await shot(a, "two-processes-creator");
    await shot(b, "two-processes-friend");
    for (const p of [a, b, c]) assert.deepEqual(p.errors || [], []);
  } finally {
    one.server.kill();
    two.server.kill();
  }
});

// ---- the phone: no sideways scrolling on any page of any game ----

test("phone 390 x 844: the start page does not scroll sideways", async ({ browser, base }) => {
  const page = await person(browser, PHONE);
  await page.goto(base);
  await page.locator("#game-choice input").first().waitFor();
  await noSidewaysScroll(page, "start page");
  assert.deepEqual(await unnamedControls(page), [], "every control on the start page has a name");
  // The page loads the modules the catalog names for the games the server offers (a game's own,
  // or the generic grid module, once for all the games it draws), and no other.
  const loaded = await page.evaluate(() => performance.getEntriesByType("resource").map((r) => new URL(r.name).pathname)
    .map((path) => /^\/js\/games\/(\w+)\.(js|css)$/.exec(path)).filter(Boolean).map((m) => `${m[1]}.${m[2]}`).filter((f) => !f.startsWith("common.")).sort());
  const modules = new Set((await (await fetch(base + "api/catalog")).json()).games.map((g) => g.module));
  assert.ok(modules.has("grid"), "a game without a module of its own (mnk) is drawn by the grid module");
  const offered = [...modules].flatMap((m) => [`${m}.css`, `${m}.js`]).sort();
  assert.deepEqual(loaded, offered, "the start page loads each offered game's module and stylesheet, and nothing else");
});

test("mathable on a 1366 x 768 laptop: the rack and End turn are in view without scrolling; squares explained", async ({ browser, base }) => {
  const page = await person(browser, { width: 1366, height: 768 });
  await startWithDefaults(page, base, "mathable");
  await myTurn(page, 60000);
  await page.locator(".rack button").first().waitFor();
  for (const selector of [".rack", "#end-turn"]) {
    const box = await page.locator(selector).boundingBox();
    assert.ok(box && box.y + box.height <= 768, `${selector} ends at ${box && Math.round(box.y + box.height)} px (the window is 768)`);
  }
  assert.match(await page.textContent(".m-legend"), /2x, 3x/);
  assert.equal(await page.locator(".m-swipe").isVisible(), false, "no swipe cue where the board fits");
  const colours = await page.evaluate(() => [...document.querySelectorAll(".swatch.mathable")].map((s) => getComputedStyle(s).backgroundColor));
  assert.equal(new Set(colours).size, colours.length, `each player has a colour of their own: ${colours}`);
  await shot(page, "mathable-laptop");
});

// The smallest width of a board's cells on a phone, where a game needs more than a finger's 24 px.
const PHONE_MIN_CELL = { mathable: 36 };

eachGame((game) => `phone 390 x 844: no page of ${game} scrolls sideways; its cells take a finger`, async ({ browser, base }, game) => {
  const page = await person(browser, PHONE);
  await startWithDefaults(page, base, game);
  await noSidewaysScroll(page, `${game}, new game`);
  await myTurn(page, 60000);
  await clickMove(page);
  await page.waitForFunction(() => window.tabletop.state.moves.length > 0);
  await myTurn(page, 60000);
  await noSidewaysScroll(page, `${game}, after a move`);
  assert.deepEqual(await unnamedControls(page), [], `every control on the ${game} page has a name`);
  // The board may be redrawn as the turn comes back, so wait for a laid-out cell and read its
  // width in that same evaluation: a second look could find the next redraw's cell before
  // layout, at 0 px (seen once in CI).
  const width = await (
    await page.waitForFunction(() => {
      const cell = document.querySelector("#board .cell");
      const measured = cell ? cell.getBoundingClientRect().width : 0;
      return measured > 0 ? measured : false;
    })
  ).jsonValue();
  const least = PHONE_MIN_CELL[game] || 24;
  assert.ok(width >= least, `${game}'s cells are ${width} px wide on a phone (at least ${least})`);
  if (game === "mathable") assert.equal(await page.locator(".m-swipe").isVisible(), true, "the phone says the board scrolls sideways");
  await shot(page, `${game}-phone`);
  await page.click("#resign");
  await confirm(page);
  await page.locator("#result:not([hidden])").waitFor();
  await noSidewaysScroll(page, `${game}, over`);
  assert.match(await page.textContent("#result"), /You lost/);
  await shot(page, `${game}-phone-over`);
});

// ---- clocks (issue 57) ----

// Both clocks as a page shows them: [{name, time, running, low}], from the DOM.
const clocksShown = (page) => page.$$eval("#clocks .clock", (nodes) => nodes.map((n) => ({
  name: n.querySelector(".clock-name").textContent, time: n.querySelector(".clock-time").textContent,
  running: n.classList.contains("running"), low: n.classList.contains("low"),
})));

test("clocks: a player who stops moving loses on time, seen live by both players and a watcher (phone)", async ({ browser, base }) => {
  // 10 s each: both first moves are free (the clocks start after them), then White never moves.
  const { a, b, c } = await inviteGame(browser, base, "connect", {
    phone: true,
    setup: async (page) => {
      await page.click("label:has(#opponent-anyone)");
      // A lobby game cannot be unlimited: "No clock" is off there.
      assert.equal(await page.locator("#clock-none").isDisabled(), true);
      assert.equal(await page.locator("#clock-5_3").isChecked(), true, "lobby games default to 5+3");
      await page.click("label:has(#opponent-friend)");
      assert.equal(await page.locator("#clock-none").isDisabled(), false);
      await page.fill("#clock-custom", "0:10+0");
      await shot(page, "clock-new-game-form");
    },
  });
  // The form's clock presets on a phone.
  const phone = await person(browser, PHONE);
  await phone.goto(base);
  await phone.locator("#clock-presets input").first().waitFor();
  await phone.fill("#clock-custom", "2+1");
  assert.equal(await phone.locator("#clock-presets input:checked").count(), 0, "a custom control replaces the presets");
  await noSidewaysScroll(phone, "the new-game form on a phone");
  assert.deepEqual(await unnamedControls(phone), [], "every control of the form has a name");
  await shot(phone, "clock-new-game-phone");
  await phone.close();
  // The players' pages answer the server's pings (its lag measure): one is sent every 5 s.
  const pongs = [a, b].map((page) => page.waitForResponse((r) => new URL(r.url()).pathname.endsWith("/pong"), { timeout: 30000 }));
  for (const page of [a, b, c]) {
    await page.locator("#clocks .clock").nth(1).waitFor();
    assert.equal((await clocksShown(page)).length, 2);
  }
  assert.match(await c.textContent("#clock-note"), /first move/);
  await clickMove(a);
  await waitPly(b, 1);
  await clickMove(b);
  await waitPly(a, 2);
  // The first seat's clock runs now, and counts down on every page between states.
  for (const page of [a, b, c]) await page.waitForFunction(() => window.tabletop.state.clock.running === 0);
  await clickMove(a);
  for (const page of [a, b, c]) await page.waitForFunction(() => window.tabletop.state.clock.running === 1 && window.tabletop.state.moves.length === 3);
  const first = await clocksShown(c);
  await c.waitForFunction((before) => document.querySelectorAll("#clocks .clock .clock-time")[1].textContent !== before, first[1].time);
  const later = await clocksShown(c);
  assert.ok(parseFloat(later[1].time) < parseFloat(first[1].time) || later[1].time !== first[1].time, "the watcher's clock counts down");
  assert.equal(later[1].running, true);
  assert.equal(later[1].low, true, "under 10 s: the low-time warning");
  await b.waitForFunction(() => document.querySelector("#clock-alert").textContent.includes("left"));
  await shot(b, "clock-running-phone");
  await noSidewaysScroll(b, "the clocks on a phone");
  // White stops: the server ends the game on time, and every page hears it live.
  for (const page of [a, b, c]) await page.waitForFunction(() => window.tabletop.state.status.over, null, { timeout: 30000 });
  for (const page of [a, b, c]) await page.locator("#result:not([hidden])").waitFor();
  assert.match(await a.textContent("#result"), /ran out of time.*You won/);
  assert.match(await b.textContent("#result"), /ran out of time.*You lost/);
  assert.match(await c.textContent("#result"), /ran out of time/);
  assert.equal(await c.evaluate(() => window.tabletop.state.result.ended_by), "flag");
  assert.equal((await clocksShown(c))[1].time, "0.0");
  await shot(b, "clock-flagged-phone");
  await shot(c, "clock-flagged-watcher");
  for (const pong of pongs) {
    const answer = await pong;
    assert.equal(answer.status(), 200, "a ping answered by its seat");
    assert.ok((await answer.json()).samples >= 1);
  }
  // The finished game's move list shows each move's time, and the mover's clock after it once
  // the clocks ran (the third move), as the server kept them.
  const history = (await serverState(c)).history;
  assert.equal(history.length, 3);
  assert.ok(history.every((h) => typeof h.time.used_ms === "number"), JSON.stringify(history));
  assert.equal(history[0].time.remaining_ms, undefined, "the first moves are not charged");
  assert.equal(typeof history[2].time.remaining_ms, "number");
  for (const page of [b, c]) {
    await page.locator("#moves .move-time").nth(2).waitFor();
    const times = await page.locator("#moves .move-time").allTextContents();
    assert.equal(times.length, 3, times.join(" | "));
    assert.match(times[0], /^\d+(\.\d)? s$/, "the time used only, before the clocks ran");
    // The clock left as the page's clocks show a time (its own formatter).
    const left = await page.evaluate(async (ms) => (await import("/js/clock.js")).formatClock(ms), history[2].time.remaining_ms);
    assert.match(times[2], /^\d+(\.\d)? s, .+ left$/, times[2]);
    assert.ok(times[2].endsWith(`, ${left} left`), `${times[2]} shows ${history[2].time.remaining_ms} ms left`);
    // The move's button (stepping through the finished game) says it too.
    const name = await page.locator("#moves li").nth(2).locator("button.move").getAttribute("aria-label");
    assert.ok(name.includes(times[2]), name);
    assert.deepEqual(await unnamedControls(page), [], "every control has a name");
  }
  await noSidewaysScroll(b, "the move times on a phone");
  await b.locator("#moves").scrollIntoViewIfNeeded();
  await c.locator("#moves").scrollIntoViewIfNeeded();
  await shot(b, "clock-move-times-phone");
  await shot(c, "clock-move-times-desktop");
});

test("claim: in a game without a clock, the player whose opponent left claims the win", async ({ browser, base }) => {
  const { a, b, c } = await inviteGame(browser, base, "connect");
  assert.equal(await a.locator("#clocks").isHidden(), true, "no clock: none shown");
  for (let n = 0; n < 3; n++) {
    const mover = n % 2 === 0 ? a : b;
    await myTurn(mover);
    await clickMove(mover);
    await waitPly(a, n + 1);
    await waitPly(b, n + 1);
  }
  // O leaves (its browser closes) while it is to move.
  await b.context().close();
  await a.waitForFunction(() => !window.tabletop.state.players[1].connected);
  await a.locator("#claim:not([hidden])").waitFor();
  assert.match(await a.textContent("#claim"), /has left the game/);
  assert.equal(await c.locator("#claim").isHidden(), true, "a watcher has nothing to claim");
  // The server's wait (--claim-after) passes; the button comes alive.
  await a.locator("#claim-win:not([disabled])").waitFor({ timeout: 30000 });
  await shot(a, "claim-offered");
  await a.click("#claim-win");
  await a.locator("#result:not([hidden])").waitFor();
  assert.match(await a.textContent("#result"), /left the game.*You won/);
  await c.waitForFunction(() => window.tabletop.state.status.over);
  assert.equal(await c.evaluate(() => window.tabletop.state.result.ended_by), "claimed");
  await shot(a, "claim-won");
});

test("accounts: sign up, log out and log in from the start page, on a phone and a desktop; the login survives a reload and play stays anonymous", async ({ browser, base }) => {
  for (const [viewport, name] of [[PHONE, "phone"], [DESKTOP, "desktop"]]) {
    const page = await person(browser, viewport);
    const who = async () => (await page.request.get(base + "api/account")).status();
    await page.goto(base);
    const status = page.locator("#account-who");
    await status.filter({ hasText: "Not logged in." }).waitFor();
    await page.getByLabel("Name", { exact: true }).fill(`ann-${name}`);
    await page.getByLabel("Password", { exact: true }).fill("correct horse battery");
    await shot(page, `account-form-${name}`);
    await page.getByRole("button", { name: "Sign up" }).click();
    await status.filter({ hasText: `Logged in as ann-${name}.` }).waitFor();
    assert.equal(await who(), 200, "the server knows the login (the page's cookie)");
    assert.equal(await page.evaluate(() => document.cookie), "", "the login cookie is HttpOnly: no script sees it");
    await noSidewaysScroll(page, `start page with an account (${name})`);
    assert.deepEqual(await unnamedControls(page), [], "every control has a name");
    await shot(page, `account-${name}`);
    await page.reload();
    await status.filter({ hasText: `Logged in as ann-${name}.` }).waitFor();
    // Playing is unchanged while logged in.
    await startWithDefaults(page, base, "connect");
    await page.goto(base);
    await page.getByRole("button", { name: "Log out" }).click();
    await status.filter({ hasText: "Not logged in." }).waitFor();
    assert.equal(await who(), 401);
    // A wrong password is said so; the right one logs in.
    await page.getByLabel("Name", { exact: true }).fill(`ann-${name}`);
    await page.getByLabel("Password", { exact: true }).fill("not the password");
    await page.getByRole("button", { name: "Log in" }).click();
    await page.locator("#account-error").filter({ hasText: "wrong name or password" }).waitFor();
    await page.getByLabel("Password", { exact: true }).fill("correct horse battery");
    await page.getByLabel("Password", { exact: true }).press("Enter");
    await status.filter({ hasText: `Logged in as ann-${name}.` }).waitFor();
    assert.equal(await who(), 200);
  }
});

// A request as the page sends it (its Origin and the login cookie): the answer's JSON.
const pageFetch = (page, method, path, body) => page.evaluate(async ([method, path, body]) => {
  const response = await fetch(path, { method, headers: body ? { "Content-Type": "application/json" } : {}, body: body ? JSON.stringify(body) : undefined });
  return { status: response.status, body: await response.json().catch(() => null) };
}, [method, path, body]);

test("rematch and the player's page: a rated game ends, both see the rating changes, one offers a rematch, the other accepts, both browsers move to the new game with their seats swapped; the page with ratings, graph, games and export (phone)", async ({ browser, base }) => {
  const ann = await person(browser, PHONE);
  const bob = await person(browser, DESKTOP);
  for (const [page, name] of [[ann, "rann"], [bob, "rbob"]]) {
    await page.goto(base);
    assert.equal((await pageFetch(page, "POST", "/api/account/signup", { name, password: "correct horse battery" })).status, 200);
  }
  const created = await pageFetch(ann, "POST", "/api/games", { game: "connect", seats: ["human", "open"], clock: "5+3", rated: true });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const id = created.body.id;
  const joined = await pageFetch(bob, "POST", `/api/games/${id}/join`, {});
  assert.equal(joined.status, 200, JSON.stringify(joined.body));
  // Each browser keeps its own seat's token, as the start page and the lobby do.
  await ann.evaluate(([id, token]) => localStorage.setItem("tabletop:" + id, JSON.stringify({ tokens: [token, null], game: "connect", created: Date.now() })), [id, created.body.tokens[0]]);
  await bob.evaluate(([id, token]) => localStorage.setItem("tabletop:" + id, JSON.stringify({ tokens: [null, token], game: "connect", created: Date.now() })), [id, joined.body.token]);
  for (const page of [ann, bob]) await page.goto(`${base}game/${id}`);
  await myTurn(ann);
  assert.equal((await pageFetch(bob, "POST", `/api/games/${id}/resign`, { token: joined.body.token })).status, 200);
  for (const page of [ann, bob]) {
    await page.waitForFunction(() => window.tabletop.state && window.tabletop.state.status.over && window.tabletop.state.rating_changes.length === 2);
    // Each player's rating change is in the players' list, each name linked to its page.
    await page.locator("#players .rating-change").first().waitFor();
    assert.match(await page.locator("#players").innerText(), /1500 \u2192 \d+\? \(\+\d+\)/);
    assert.equal(await page.locator("#players a.account").first().getAttribute("href"), "/player/rann");
  }
  await shot(ann, "rematch-offer-phone");
  // Ann offers the rematch; Bob's page shows it with Accept and Decline.
  await ann.getByRole("button", { name: "Offer a rematch, seats swapped" }).click();
  await ann.locator("#proposal").filter({ hasText: "Rematch offered" }).waitFor();
  await bob.locator("#proposal").filter({ hasText: "offers a rematch" }).waitFor();
  assert.deepEqual(await unnamedControls(bob), [], "every control has a name");
  await shot(bob, "rematch-offered-desktop");
  await bob.getByRole("button", { name: "Accept the rematch" }).click();
  // Both move to the new game, each in the other's seat, with its own token only.
  for (const [page, seat] of [[ann, 1], [bob, 0]]) {
    await page.waitForFunction((old) => window.tabletop && window.tabletop.state && window.tabletop.id !== old && window.tabletop.state.your_seat !== null, id);
    const mine = await page.evaluate(() => ({ seat: window.tabletop.state.your_seat, held: window.tabletop.tokens.map(Boolean), over: window.tabletop.state.status.over }));
    assert.deepEqual(mine, { seat, held: seat === 0 ? [true] : [false, true], over: false });
  }
  await shot(ann, "rematch-new-game-phone");
  // The player's page: the rating, its graph, the game with its change, the export links.
  await ann.goto(`${base}player/rann`);
  await ann.locator("#recent-games li").first().waitFor();
  assert.match(await ann.locator("table.ratings").innerText(), /\d+\?/);
  assert.equal(await ann.locator("svg.rating-graph circle").count(), 1);
  assert.match(await ann.locator("#recent-games").innerText(), /won \+\d+/);
  assert.equal(await ann.locator("#recent-games a[href='/player/rbob']").count(), 2, "the opponent linked in both games");
  await noSidewaysScroll(ann, "the player's page (phone)");
  assert.deepEqual(await unnamedControls(ann), [], "every control has a name");
  await shot(ann, "player-page-phone");
  const text = await ann.evaluate(async () => (await fetch(document.querySelector(".export-links a").href)).text());
  assert.match(text, /^tabletop connect\n# players: rann \(X\) - rbob \(O\)/);
  // The account box links to one's page.
  await ann.goto(base);
  await ann.locator("#account-page").filter({ hasText: "rann" }).waitFor();
  assert.equal(await ann.locator("#account-page").getAttribute("href"), "/player/rann");
  await bob.goto(`${base}player/nobody-here`);
  await bob.locator("#player-name").filter({ hasText: "No such player" }).waitFor();
  // (Its 404 is the answer asked for.)
  bob.missing = (bob.missing || []).filter((url) => !url.endsWith("/api/players/nobody-here"));
});

// ---- people with accounts: seek, pair, rated, rematch, the player's page (issue 59) ----

// Glicko-2 as Glickman's paper gives it (lichess's settings: a new player is 1500 with deviation
// 500 and volatility 0.09; tau 0.75): one rating period of one game, from `me` against `them`
// with score `s`. Written here apart from the server's code, to check what the page shows.
function glicko2(me, them, s) {
  const scale = 173.7178, tau = 0.75;
  const mu = (me.r - 1500) / scale, phi = me.rd / scale, muJ = (them.r - 1500) / scale, phiJ = them.rd / scale;
  const g = 1 / Math.sqrt(1 + (3 * phiJ * phiJ) / (Math.PI * Math.PI));
  const e = 1 / (1 + Math.exp(-g * (mu - muJ)));
  const v = 1 / (g * g * e * (1 - e));
  const delta = v * g * (s - e);
  const a = Math.log(me.vol * me.vol);
  const f = (x) => (Math.exp(x) * (delta * delta - phi * phi - v - Math.exp(x))) / (2 * (phi * phi + v + Math.exp(x)) ** 2) - (x - a) / (tau * tau);
  let A = a, B;
  if (delta * delta > phi * phi + v) B = Math.log(delta * delta - phi * phi - v);
  else { let k = 1; while (f(a - k * tau) < 0) k++; B = a - k * tau; }
  let fA = f(A), fB = f(B);
  while (Math.abs(B - A) > 1e-6) {
    const C = A + ((A - B) * fA) / (fB - fA), fC = f(C);
    if (fC * fB <= 0) { A = B; fA = fB; } else fA /= 2;
    B = C; fB = fC;
  }
  const vol = Math.exp(A / 2);
  const phiStar = Math.sqrt(phi * phi + vol * vol);
  const phiNew = 1 / Math.sqrt(1 / (phiStar * phiStar) + 1 / v);
  return { r: scale * (mu + phiNew * phiNew * g * (s - e)) + 1500, rd: scale * phiNew, vol };
}

// Signs up from the start page's account box, as a person would.
async function signUp(page, base, name) {
  await page.goto(base);
  await page.locator("#account-who").filter({ hasText: "Not logged in." }).waitFor();
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByLabel("Password", { exact: true }).fill("correct horse battery");
  await page.getByRole("button", { name: "Sign up" }).click();
  await page.locator("#account-who").filter({ hasText: `Logged in as ${name}.` }).waitFor();
}

test("accounts, three browsers: two people sign up, one seeks a rated game, the other pairs from the lobby, a watcher follows; the ratings change as Glicko-2 says; rematch; the player's page and its export (phone)", async ({ browser, base }) => {
  const ann = await person(browser, DESKTOP);
  const bob = await person(browser, PHONE);
  const watcher = await person(browser, DESKTOP);
  await signUp(ann, base, "seek-ann");
  await signUp(bob, base, "seek-bob");
  // Ann seeks: tic-tac-toe, anyone, 5+3, rated.
  await ann.click("label:has(#game-mnk)");
  await ann.click("label:has(#opponent-anyone)");
  await ann.getByRole("radio", { name: "5+3 (blitz)" }).check();
  await ann.waitForFunction(() => !document.getElementById("seek-rated").disabled);
  await ann.getByRole("checkbox", { name: "Rated" }).first().check();
  await shot(ann, "seek-form-desktop");
  await Promise.all([ann.waitForURL(/\/game\/[0-9a-f]+$/), ann.click("button[type=submit]")]);
  await ann.waitForFunction(() => window.tabletop.state && window.tabletop.state.your_seat === 0);
  const id = await ann.evaluate(() => window.tabletop.id);
  // Bob sees the seek in the lobby, with Ann's provisional rating, and joins it.
  await bob.goto(base);
  const entry = bob.locator("#lobby li", { hasText: "rated blitz, by seek-ann (1500?)" });
  await entry.first().waitFor();
  await noSidewaysScroll(bob, "the lobby with a rated seek (phone)");
  assert.deepEqual(await unnamedControls(bob), [], "every control on the start page has a name");
  await shot(bob, "seek-lobby-phone");
  await Promise.all([bob.waitForURL(new RegExp(`/game/${id}$`)), entry.first().getByRole("button", { name: /^Join/ }).click()]);
  await bob.waitForFunction(() => window.tabletop.state && window.tabletop.state.your_seat === 1);
  await watcher.goto(`${base}game/${id}`);
  await watcher.waitForFunction(() => window.tabletop.state && window.tabletop.state.your_seat === null);
  const server = await serverState(watcher);
  assert.equal(server.rated, true, "the game is rated");
  assert.deepEqual(server.players.map((p) => p.player), ["seek-ann", "seek-bob"], "each seat is its account's");
  // The game to the end by clicks: X (Ann) wins on the diagonal.
  const moves = ["a1", "a2", "b2", "a3", "c3"];
  await playLive({ a: ann, b: bob, c: watcher }, { pick: (page, turn) => page.click(`#board [data-key="${moves[turn]}"]`), maxTurns: moves.length + 1 });
  for (const page of [ann, bob, watcher]) {
    await page.waitForFunction(() => window.tabletop.state.status.over && (window.tabletop.state.rating_changes || []).length === 2);
  }
  // Both ratings changed as the formula says (two new players; Ann won).
  const fresh = { r: 1500, rd: 500, vol: 0.09 };
  const annAfter = Math.round(glicko2(fresh, fresh, 1).r);
  const bobAfter = Math.round(glicko2(fresh, fresh, 0).r);
  const changes = (await serverState(watcher)).rating_changes;
  const bySeat = Object.fromEntries(changes.map((c) => [c.seat, c]));
  assert.deepEqual([bySeat[0].before, bySeat[0].after, bySeat[1].before, bySeat[1].after], [1500, annAfter, 1500, bobAfter]);
  for (const page of [ann, bob, watcher]) {
    const shown = await page.locator("#players").innerText();
    assert.ok(shown.includes(`1500 \u2192 ${annAfter}? (+${annAfter - 1500})`), shown);
    assert.ok(shown.includes(`1500 \u2192 ${bobAfter}? (\u2212${1500 - bobAfter})`), shown);
  }
  await shot(bob, "seek-rated-end-phone");
  await shot(watcher, "seek-rated-end-watcher");
  // Rematch: Bob offers, Ann accepts; both move to the new game in each other's seat; the
  // watcher is shown the way to it.
  await bob.getByRole("button", { name: "Offer a rematch, seats swapped" }).click();
  await ann.locator("#proposal").filter({ hasText: "offers a rematch" }).waitFor();
  await ann.getByRole("button", { name: "Accept the rematch" }).click();
  for (const [page, seat] of [[ann, 1], [bob, 0]]) {
    await page.waitForFunction((old) => window.tabletop && window.tabletop.state && window.tabletop.id !== old && window.tabletop.state.your_seat !== null, id);
    assert.equal(await page.evaluate(() => window.tabletop.state.your_seat), seat);
  }
  const rematch = await bob.evaluate(() => window.tabletop.id);
  await watcher.locator(`#rematch-link a[href="/game/${rematch}"]`).waitFor();
  assert.equal(await bob.evaluate(() => window.tabletop.state.rated), true, "the rematch is rated too");
  // Bob opens Ann's page from her name in the new game's players list.
  await Promise.all([bob.waitForURL(/\/player\/seek-ann$/), bob.locator("#players a.account", { hasText: "seek-ann" }).click()]);
  await bob.locator("#recent-games li").first().waitFor();
  assert.match(await bob.locator("table.ratings").innerText(), new RegExp(`${annAfter}\\?`));
  assert.equal(await bob.locator("svg.rating-graph circle").count(), 1, "one point: one rated game");
  assert.match(await bob.locator("#recent-games").innerText(), new RegExp(`won \\+${annAfter - 1500}`));
  await noSidewaysScroll(bob, "the player's page (phone)");
  assert.deepEqual(await unnamedControls(bob), [], "every control on the player's page has a name");
  await shot(bob, "seek-player-page-phone");
  // The export opened: the text file downloaded from the page holds the game's moves and result.
  const [download] = await Promise.all([bob.waitForEvent("download"), bob.getByRole("link", { name: /as text/ }).click()]);
  const text = readFileSync(await download.path(), "utf8");
  assert.match(text, /# players: seek-ann \(X\) - seek-bob \(O\)/, text);
  for (const move of moves) assert.ok(text.includes(move), `${move} in the export:\n${text}`);
});

test("quick pairing: two people logged in choose the same game and time control and land in one rated game, one seat each", async ({ browser, base }) => {
  const ann = await person(browser, PHONE);
  const bob = await person(browser, DESKTOP);
  await signUp(ann, base, "pool-ann");
  await signUp(bob, base, "pool-bob");
  for (const page of [ann, bob]) {
    await page.selectOption("#pool-game", "mnk");
    await page.waitForFunction(() => !document.getElementById("pool-rated").disabled);
    await page.check("#pool-rated");
  }
  await ann.getByRole("button", { name: "Quick pairing: 3+2 (blitz)" }).click();
  await ann.locator("#pool-status").filter({ hasText: "Looking for an opponent" }).waitFor();
  await noSidewaysScroll(ann, "quick pairing, waiting (phone)");
  await shot(ann, "pool-waiting-phone");
  await bob.getByRole("button", { name: "Quick pairing: 3+2 (blitz)" }).click();
  // Paired at the next wave (every 10 s by default): both open the same game.
  for (const page of [ann, bob]) await page.waitForFunction(() => window.tabletop && window.tabletop.state && window.tabletop.state.your_seat !== null, null, { timeout: 60000 });
  const [a, b] = await Promise.all([ann, bob].map((p) => p.evaluate(() => ({ id: window.tabletop.id, seat: window.tabletop.state.your_seat, rated: window.tabletop.state.rated, clock: window.tabletop.state.clock && window.tabletop.state.clock.control }))));
  assert.equal(a.id, b.id, "one game");
  assert.deepEqual([a.seat, b.seat].sort(), [0, 1], "one seat each");
  assert.equal(a.rated, true);
  const server = await serverState(ann);
  assert.deepEqual(server.players.map((p) => p.player).sort(), ["pool-ann", "pool-bob"]);
  await shot(ann, "pool-paired-phone");
});

// ---- the runner ----

const filter = process.argv[2] ? new RegExp(process.argv[2], "i") : null;
const { server, base } = await startServer();
// The games the server offers: each gets the tests written for every game.
const catalog = (await (await fetch(base + "api/catalog")).json()).games;
assert.ok(catalog.length > 0, "the catalog lists games");
console.log(`games in the catalog: ${catalog.map((g) => g.name).join(", ")}`);
const runs = tests.flatMap((t) => (t.eachGame ? catalog.map((g) => ({ name: t.name(g.name), fn: (context) => t.fn(context, g.name) })) : [t]));
const browser = await launch();
let passed = 0;
let failed = 0;
const started = Date.now();
for (const { name, fn } of runs) {
  if (filter && !filter.test(name)) continue;
  const t0 = Date.now();
  const context = { browser, base };
  try {
    await fn(context);
    for (const ctx of browser.contexts()) for (const p of ctx.pages()) {
      assert.deepEqual(p.missing || [], [], "no request answered 404");
      assert.deepEqual(p.errors || [], [], "no script error");
    }
    passed++;
    console.log(`ok - ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  } catch (error) {
    failed++;
    console.log(`not ok - ${name}: ${error.stack || error}`);
    for (const [i, ctx] of browser.contexts().entries()) for (const p of ctx.pages()) {
      await shot(p, `failure-${name.split(":")[0].replace(/\W+/g, "-")}-${i}`).catch(() => {});
    }
  }
  for (const ctx of browser.contexts()) await ctx.close();
}
await browser.close();
server.kill();
if (latencies.length) {
  latencies.sort((x, y) => x - y);
  console.log(`live moves: ${latencies.length}, seen by the other person and the watcher within ${latencies[Math.floor(latencies.length / 2)]} ms (median), ${latencies[latencies.length - 1]} ms (max)`);
}
console.log(`browser tests took ${((Date.now() - started) / 1000).toFixed(0)} s`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
