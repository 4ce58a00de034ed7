"""Bots written in Python with this package, seated by `tabletop match` over the line protocol
(docs/PROTOCOL.md): one that wins, one that loses, one that crashes and one that times out.
Each game lost by a bot's fault is a forfeit, and the match goes on."""

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BOT = pathlib.Path(__file__).resolve().parent / "protocol_bot.py"


def tabletop_binary():
    """The command line built by `cargo build` / `cargo test` (scripts/test builds it first)."""
    for candidate in (os.environ.get("TABLETOP_BIN"), ROOT / "target/debug/tabletop", ROOT / "target/release/tabletop"):
        if candidate and pathlib.Path(candidate).is_file():
            return str(candidate)
    return shutil.which("tabletop")


BINARY = tabletop_binary()
pytestmark = pytest.mark.skipif(BINARY is None, reason="the tabletop command is not built (cargo build -p tabletop-cli)")


def match(bot_mode, opponent, games=2, timeout="10s"):
    """`tabletop match connect` of the bot (player A) against `opponent`, as JSON."""
    bot = f'external:cmd="{sys.executable} {BOT} {bot_mode}",timeout={timeout}'
    out = subprocess.run(
        [BINARY, "match", "connect", "--preset", "connect4-6x4", "--player", bot, "--player", opponent,
         "--games", str(games), "--seed", "3", "--json"],
        capture_output=True, text=True, timeout=300, check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1]), out.stderr + out.stdout


def test_a_bot_playing_the_packages_solver_wins_every_game():
    result, _ = match("solver", "random:seed=5")
    assert result["wins"] == [2, 0] and result["forfeits"] == [0, 0], result


def test_a_bot_playing_random_moves_loses_to_the_engine():
    result, _ = match("random", "engine:time=100ms")
    assert result["wins"] == [0, 2] and result["forfeits"] == [0, 0], result


def test_a_bot_that_crashes_forfeits_each_game_and_the_match_goes_on():
    result, text = match("crash", "random:seed=5")
    assert result["games"] == 2 and result["wins"] == [0, 2] and result["forfeits"] == [2, 0], result
    assert "exited before answering" in text, text


def test_a_bot_that_does_not_answer_in_time_forfeits():
    result, text = match("hang", "random:seed=5", games=1, timeout="1s")
    assert result["wins"] == [0, 1] and result["forfeits"] == [1, 0], result
    assert "timed out" in text, text
