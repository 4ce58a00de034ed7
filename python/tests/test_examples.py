"""The examples under examples/ work against the package."""

import importlib.util
import pathlib
import random

import tabletop

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_reversi_documents_player_in_python_moves_like_the_classic_player():
    example = load("reversi_alphabeta")
    classic = tabletop.Engine("reversi", "classic:depth=3")
    rng = random.Random(4)
    state = tabletop.load_game("reversi").new_initial_state()
    compared = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        if compared < 40:
            assert example.choose(state, 3) == classic.choose(state), str(state)
            compared += 1
        state.apply_action(rng.choice(legal))
    assert compared >= 20


def test_the_reversi_example_scores_a_match():
    example = load("reversi_alphabeta")
    opponent = tabletop.Engine("reversi", "random:seed=1")
    results = [example.play(2, opponent, seat, opening=2, seed=seat) for seat in (0, 1)]
    assert all(r in (-1.0, 0.0, 1.0) for r in results)
