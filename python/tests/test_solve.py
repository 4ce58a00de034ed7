"""solve() against the exact values the command line gives (its binary when built, else the
values it printed, recorded here)."""

import json
import os
import pathlib
import shutil
import subprocess

import pytest

import tabletop

ROOT = pathlib.Path(__file__).resolve().parents[2]

# (game, options, moves in notation, CLI arguments, {move: exact score} as `tabletop analyze` gives)
CASES = [
    (
        "connect",
        {"preset": "connect4-6x4"},
        [],
        ["analyze", "connect", "--preset", "connect4-6x4"],
        {str(c): -1 for c in range(1, 7)},
    ),
    (
        "connect",
        {},
        list("2252576253462244111563365343671351441"),
        ["analyze", "connect", "--position", "2252576253462244111563365343671351441"],
        {"6": -1, "7": -2},
    ),
    (
        "slide",
        {"size": 3, "empty": 1},
        ["4"],
        ["analyze", "slide", "--size", "3", "--empty", "1", "--position", "gbggggggg"],
        {"5": 999991, "1": -999990, "6": -999990, "7": -999990, "2": -999994, "3": -999994, "8": -999994, "9": -999994},
    ),
]


def tabletop_binary():
    """The built `tabletop` command: $TABLETOP_BIN, the repository's target, or the PATH."""
    candidates = [os.environ.get("TABLETOP_BIN")]
    candidates += [str(ROOT / "target" / kind / "tabletop") for kind in ("release", "debug")]
    candidates.append(shutil.which("tabletop"))
    return next((c for c in candidates if c and os.access(c, os.X_OK)), None)


@pytest.mark.parametrize("name,options,moves,cli,known", CASES)
def test_solve_agrees_with_the_command_line(name, options, moves, cli, known):
    state = tabletop.load_game(name, **options).new_initial_state()
    for move in moves:
        state.apply_action(state.string_to_action(move))
    solved = tabletop.solve(state, time=20.0)
    by_move = {state.action_to_string(a): score for a, score in solved.items()}
    assert by_move == known
    binary = tabletop_binary()
    if binary:
        out = subprocess.run([binary, *cli, "--json", "--time", "20s"], capture_output=True, text=True, check=True)
        answer = json.loads(out.stdout)
        assert all(m["exact"] for m in answer["moves"])
        assert {m["move"]: m["score"] for m in answer["moves"]} == by_move


def test_solve_refuses_what_it_cannot_prove():
    state = tabletop.load_game("reversi").new_initial_state()
    with pytest.raises(ValueError, match="no exact value"):
        tabletop.solve(state, time=0.05)


def test_solve_of_a_finished_game_is_empty():
    state = tabletop.load_game("connect", preset="connect3").new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert tabletop.solve(state) == {}
