"""tabletop: board games for Python, with their exact solvers and strong engines.

Every game of tabletop's registry (``GAMES``) is reached the same way:

- ``load_game(name, **options)`` gives a game with OpenSpiel's method names
  (``num_players()``, ``num_distinct_actions()``, ``new_initial_state()``), whose states have
  ``current_player()``, ``legal_actions()``, ``apply_action(a)``, ``is_terminal()``,
  ``returns()``, ``clone()``, ``action_to_string(a)``, ``string_to_action(s)`` (the game's own
  notation), ``observation_tensor(player)`` (what that player may see) and ``str(state)``.
- ``tabletop.pettingzoo.env(name, **options)``: a PettingZoo AEC environment with action masks.
- ``tabletop.vector.VecEnv(name, num_envs, seed)``: many games stepped in one call, numpy in
  and out.
- ``Engine(name, "engine:level=5")`` chooses moves; ``solve(state)`` gives every legal move's
  exact value where the game's solver answers; ``analyze(state, time=...)`` values every move.

Chance (Mathable's bag) comes from the ``seed`` option, so every game is reproducible.

>>> import tabletop
>>> name = tabletop.GAMES[0]                   # any game of tabletop.GAMES
>>> state = tabletop.load_game(name).new_initial_state()
>>> state.apply_action(state.legal_actions()[0])
>>> state.current_player()
1
"""

from ._tabletop import (
    GAMES,
    Engine,
    Game,
    State,
    VecEnv,
    analyze,
    game_options,
    load_game,
    player_kinds,
    solve,
)

#: OpenSpiel's player id of a finished game, returned by ``State.current_player()``.
TERMINAL = -4

__all__ = [
    "GAMES",
    "TERMINAL",
    "Engine",
    "Game",
    "State",
    "VecEnv",
    "analyze",
    "game_options",
    "load_game",
    "player_kinds",
    "solve",
]
