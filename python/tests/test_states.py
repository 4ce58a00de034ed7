"""OpenSpiel-style invariants on every game: seeded random games to the end, and the engines."""

import copy
import random

import numpy as np
import pytest

import tabletop

from conftest import QUICK_OPTIONS


def play_random(game, seed, check=True):
    rng = random.Random(seed)
    state = game.new_initial_state(seed=seed)
    actions = game.num_distinct_actions()
    players = game.num_players()
    shape = game.observation_tensor_shape()
    steps = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        player = state.current_player()
        assert 0 <= player < players
        assert legal and legal == sorted(set(legal))
        assert all(0 <= a < actions for a in legal)
        assert state.returns() == [0.0] * players
        if check:
            for a in legal:
                text = state.action_to_string(a)
                assert state.string_to_action(text) == a, text
                assert state.action_to_string(player, a) == text
            for p in range(players):
                obs = state.observation_tensor(p)
                assert obs.dtype == np.float32 and obs.size == int(np.prod(shape))
            with pytest.raises(IndexError):
                state.observation_tensor(players)
            illegal = next((a for a in range(actions) if a not in legal), None)
            if illegal is not None:
                before = state.history()
                with pytest.raises(ValueError):
                    state.apply_action(illegal)
                assert state.history() == before
            with pytest.raises(ValueError):
                state.apply_action(actions)
        action = rng.choice(legal)
        clone = state.clone()
        text = str(clone)
        state.apply_action(action)
        assert str(clone) == text, "a clone changed with its original"
        assert clone.history() + [action] == state.history()
        steps += 1
    assert state.current_player() == tabletop.TERMINAL
    assert state.legal_actions() == []
    returns = state.returns()
    assert len(returns) == players
    assert all(r in (-1.0, 0.0, 1.0) for r in returns)
    assert returns.count(1.0) <= 1
    if players == 2:
        assert sum(returns) == 0.0
    with pytest.raises(ValueError):
        state.apply_action(0)
    return state, steps


def test_random_games_keep_openspiel_invariants(game_name):
    game = tabletop.load_game(game_name, **QUICK_OPTIONS.get(game_name, {}))
    assert game.name == game_name
    for seed in range(3):
        play_random(game, seed)


def test_seeded_games_replay_identically(game_name):
    game = tabletop.load_game(game_name, **QUICK_OPTIONS.get(game_name, {}))
    a, _ = play_random(game, 11, check=False)
    b, _ = play_random(game, 11, check=False)
    assert a.history() == b.history() and str(a) == str(b)
    # The moves replay onto a new state of the same seed.
    replay = game.new_initial_state(seed=11)
    for action in a.history():
        replay.apply_action(action)
    assert replay.returns() == a.returns() and str(replay) == str(a)


def test_copy_module_and_clone_are_independent():
    state = tabletop.load_game("connect").new_initial_state()
    other = copy.deepcopy(state)
    state.apply_action(3)
    assert other.history() == [] and state.history() == [3]


def test_hidden_information_is_hidden_from_other_players():
    game = tabletop.load_game("mathable", seed=3)
    state = game.new_initial_state()
    cells = 14 * 14
    rack = slice(2 * cells, 2 * cells + 91)
    theirs_before = state.observation_tensor(1)
    mine_before = state.observation_tensor(0)
    assert mine_before[rack].sum() == 7 and theirs_before[rack].sum() == 7
    # Player 0 exchanges their whole rack: their own view of it changes, player 1's does not.
    swap = [a for a in state.legal_actions() if state.action_to_string(a).startswith("swap")]
    state.apply_action(swap[-1])
    assert state.current_player() == 1
    assert not np.array_equal(state.observation_tensor(0)[rack], mine_before[rack])
    assert np.array_equal(state.observation_tensor(1)[rack], theirs_before[rack])
    assert state.notation() is None, "a hidden-information game has no public notation"


def test_errors_are_clear():
    with pytest.raises(ValueError, match="no game"):
        tabletop.load_game("chess")
    with pytest.raises(ValueError, match="no option"):
        tabletop.load_game("connect", colour="red")
    state = tabletop.load_game("reversi").new_initial_state()
    with pytest.raises(ValueError):
        state.string_to_action("z9")
    with pytest.raises(ValueError):
        state.action_to_string(1000)


def test_openspiel_numbering_of_othello():
    state = tabletop.load_game("reversi").new_initial_state()
    # OpenSpiel's othello: action = 8 * row + column, d3 is 19 (row 3 = index 2).
    assert state.string_to_action("d3") == 19
    assert sorted(state.action_to_string(a) for a in state.legal_actions()) == ["c4", "d3", "e6", "f5"]


@pytest.mark.parametrize("spec", ["engine:time=50ms", "random:seed=3"])
def test_engines_choose_legal_moves(game_name, spec):
    game = tabletop.load_game(game_name, **QUICK_OPTIONS.get(game_name, {}))
    engine = tabletop.Engine(game_name, spec)
    state = game.new_initial_state(seed=2)
    for _ in range(6):
        if state.is_terminal():
            break
        action = engine.choose(state)
        assert action in state.legal_actions()
        state.apply_action(action)


def test_engine_levels_and_errors():
    state = tabletop.load_game("connect").new_initial_state()
    assert tabletop.Engine("connect", "engine:level=5").choose(state) in state.legal_actions()
    with pytest.raises(ValueError):
        tabletop.Engine("connect", "chess-engine")
    with pytest.raises(ValueError):
        tabletop.Engine("reversi").choose(state)
    othello = tabletop.load_game("reversi").new_initial_state()
    assert tabletop.Engine("reversi", "engine:level=5").choose(othello) in othello.legal_actions()


def test_engine_wins_against_random_at_connect_four():
    game = tabletop.load_game("connect")
    engine = tabletop.Engine("connect", "engine:level=5")
    rng = random.Random(5)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.current_player() == 0:
            state.apply_action(engine.choose(state))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert state.returns() == [1.0, -1.0]


def test_analyze_values_every_legal_move(game_name):
    game = tabletop.load_game(game_name, **QUICK_OPTIONS.get(game_name, {}))
    state = game.new_initial_state(seed=4)
    moves = tabletop.analyze(state, time=0.2)
    assert sorted(m["action"] for m in moves) == state.legal_actions() or game_name == "mathable"
    for m in moves:
        assert state.action_to_string(m["action"]) == m["move"]
        assert isinstance(m["score"], int) and isinstance(m["exact"], bool)
    scores = [m["score"] for m in moves]
    assert scores == sorted(scores, reverse=True)
