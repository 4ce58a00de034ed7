"""PettingZoo AEC environments for every game: ``tabletop.pettingzoo.env(name, **options)``.

Agents are ``player_0``, ``player_1``, ...; each observation is a dict with ``observation``
(what that player may see, float32, the game's observation shape) and ``action_mask`` (int8 over
every action id). Rewards come at the end: 1 for a win, -1 for a loss, 0 for a draw. A game whose
turn has several moves (Mathable) keeps the same agent selected until its turn ends.

>>> from tabletop.pettingzoo import env
>>> import tabletop
>>> e = env(tabletop.GAMES[0])                # any game of tabletop.GAMES
>>> e.reset(seed=1)
>>> observation, reward, termination, truncation, info = e.last()
>>> bool(observation["action_mask"].any())
True
"""

from typing import Any, Dict, Optional

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from . import load_game

__all__ = ["TabletopEnv", "env", "raw_env"]


class TabletopEnv(AECEnv):
    """One game of tabletop as a PettingZoo AEC environment."""

    metadata = {"render_modes": ["human", "ansi"], "name": "tabletop", "is_parallelizable": False}

    def __init__(self, name: str, render_mode: Optional[str] = None, **options: Any) -> None:
        super().__init__()
        self.game = load_game(name, **options)
        self.metadata = dict(self.metadata, name=f"tabletop_{self.game.name}")
        self.render_mode = render_mode
        n = self.game.num_players()
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = list(self.possible_agents)
        actions = self.game.num_distinct_actions()
        shape = tuple(self.game.observation_tensor_shape())
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(low=-np.inf, high=np.inf, shape=shape, dtype=np.float32),
                    "action_mask": spaces.Box(low=0, high=1, shape=(actions,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(actions) for agent in self.possible_agents}
        self._shape = shape
        self.state_: Any = None
        self._seed: Optional[int] = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> None:
        """Starts a new game; ``seed`` seeds the game's chance (Mathable's bag)."""
        if seed is not None:
            self._seed = int(seed)
        self.state_ = self.game.new_initial_state(seed=self._seed)
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self.state_.current_player()]

    def observe(self, agent: str) -> Dict[str, np.ndarray]:
        player = self.possible_agents.index(agent)
        observation = self.state_.observation_tensor(player).reshape(self._shape)
        mask = np.zeros(self.game.num_distinct_actions(), dtype=np.int8)
        if self.state_.current_player() == player:
            mask[self.state_.legal_actions()] = 1
        return {"observation": observation, "action_mask": mask}

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.state_.apply_action(int(action))
        if self.state_.is_terminal():
            for agent_name, value in zip(self.possible_agents, self.state_.returns()):
                self.rewards[agent_name] = float(value)
                self.terminations[agent_name] = True
            index = self.possible_agents.index(agent)
            self.agent_selection = self.possible_agents[(index + 1) % len(self.possible_agents)]
        else:
            for agent_name in self.agents:
                self.rewards[agent_name] = 0.0
            self.agent_selection = self.possible_agents[self.state_.current_player()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> Optional[str]:
        if self.render_mode is None:
            return None
        text = str(self.state_)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass


def raw_env(name: str, render_mode: Optional[str] = None, **options: Any) -> TabletopEnv:
    """The environment without PettingZoo's wrappers."""
    return TabletopEnv(name, render_mode=render_mode, **options)


def env(name: str, render_mode: Optional[str] = None, **options: Any) -> AECEnv:
    """Game ``name`` of ``tabletop.GAMES`` as an AEC environment, with PettingZoo's order and
    bounds checks (an illegal action raises)."""
    from pettingzoo.utils import wrappers

    environment: AECEnv = raw_env(name, render_mode=render_mode, **options)
    environment = wrappers.AssertOutOfBoundsWrapper(environment)
    environment = wrappers.OrderEnforcingWrapper(environment)
    return environment
