"""The vector API against the per-state API, on the same seeds."""

import numpy as np
import pytest

import tabletop
from tabletop.vector import VecEnv, random_actions

from conftest import QUICK_OPTIONS


def test_vector_matches_states(game_name):
    options = QUICK_OPTIONS.get(game_name, {})
    game = tabletop.load_game(game_name, **options)
    n = 4
    vec = VecEnv(game_name, n, seed=9, **options)
    assert (vec.num_envs, vec.num_distinct_actions, vec.num_players) == (
        n,
        game.num_distinct_actions(),
        game.num_players(),
    )
    states = [game.new_initial_state(seed=int(s)) for s in vec.episode_seeds()]
    rng = np.random.default_rng(9)
    finished = 0
    for _ in range(3000):
        mask = vec.legal_mask()
        obs = vec.observation()
        players = vec.current_player()
        assert mask.shape == (n, game.num_distinct_actions()) and mask.dtype == np.bool_
        assert obs.shape == (n, *game.observation_tensor_shape())
        for i, state in enumerate(states):
            assert np.flatnonzero(mask[i]).tolist() == state.legal_actions()
            assert players[i] == state.current_player()
            expect = state.observation_tensor(state.current_player()).reshape(obs.shape[1:])
            assert np.array_equal(obs[i], expect)
        actions = random_actions(mask, rng)
        rewards, terminated = vec.step(actions)
        assert rewards.shape == (n, game.num_players()) and terminated.shape == (n,)
        seeds = vec.episode_seeds()
        for i in range(n):
            states[i].apply_action(int(actions[i]))
            assert terminated[i] == states[i].is_terminal()
            if terminated[i]:
                assert rewards[i].tolist() == states[i].returns()
                states[i] = game.new_initial_state(seed=int(seeds[i]))
                finished += 1
            else:
                assert not rewards[i].any()
        if finished >= 6:
            break
    assert finished >= 6


def test_random_actions_are_legal_and_uniform():
    mask = np.zeros((2000, 5), dtype=bool)
    mask[:, [1, 3]] = True
    actions = random_actions(mask, np.random.default_rng(1))
    assert set(actions.tolist()) == {1, 3}
    assert 800 < (actions == 1).sum() < 1200
    with pytest.raises(ValueError, match="no legal action"):
        random_actions(np.zeros((3, 4), dtype=bool), np.random.default_rng(1))


def test_illegal_step_plays_nothing():
    vec = VecEnv("connect", 2, seed=1)
    before = vec.legal_mask().copy()
    with pytest.raises(ValueError):
        vec.step(np.array([0, 99], dtype=np.int64))
    with pytest.raises(ValueError):
        vec.step(np.array([0], dtype=np.int64))
    assert np.array_equal(vec.legal_mask(), before)
    vec.step(np.array([0, 1], dtype=np.int64))
    vec.step([2, 3])  # any integer sequence
    vec.step(np.array([4, 5], dtype=np.int32))
    assert vec.legal_mask().all()
    vec.reset(2)
    assert vec.legal_mask().all()


def test_seeds_reproduce():
    a = VecEnv("mathable", 3, seed=4)
    b = VecEnv("mathable", 3, seed=4)
    assert np.array_equal(a.episode_seeds(), b.episode_seeds())
    assert np.array_equal(a.observation(), b.observation())
    assert not np.array_equal(VecEnv("mathable", 3, seed=5).episode_seeds(), a.episode_seeds())
