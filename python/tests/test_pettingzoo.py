"""PettingZoo's own api_test on every game."""

import pytest

pettingzoo = pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test  # noqa: E402

import tabletop.pettingzoo  # noqa: E402

from conftest import QUICK_OPTIONS  # noqa: E402


def test_api_test_passes(game_name):
    env = tabletop.pettingzoo.env(game_name, **QUICK_OPTIONS.get(game_name, {}))
    api_test(env, num_cycles=200, verbose_progress=False)


def test_a_game_plays_to_the_end_with_rewards(game_name):
    env = tabletop.pettingzoo.env(game_name, **QUICK_OPTIONS.get(game_name, {}))
    env.reset(seed=3)
    import numpy as np

    rng = np.random.default_rng(3)
    totals = {agent: 0.0 for agent in env.possible_agents}
    for agent in env.agent_iter(max_iter=100_000):
        observation, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        if termination or truncation:
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        assert legal.size > 0
        env.step(int(rng.choice(legal)))
    assert not env.agents, "every agent left at the end"
    assert all(v in (-1.0, 0.0, 1.0) for v in totals.values())
    if len(totals) == 2:
        assert sum(totals.values()) == 0.0


def test_illegal_action_raises():
    env = tabletop.pettingzoo.env("connect")
    env.reset()
    for _ in range(6):
        env.step(0)
    with pytest.raises(ValueError):
        env.step(0)  # the column is full
