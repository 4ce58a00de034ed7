"""Type stubs of tabletop's native module (see ``tabletop`` for the overview)."""

from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

#: The registry's game names.
GAMES: List[str]

class Game:
    """A game with its options (OpenSpiel's ``pyspiel.Game``); made by ``load_game``."""

    @property
    def name(self) -> str: ...
    def options(self) -> str:
        """The options as JSON text."""
    def num_players(self) -> int: ...
    def num_distinct_actions(self) -> int:
        """Action ids run from 0 to this, exclusive."""
    def observation_tensor_shape(self) -> List[int]: ...
    def observation_tensor_size(self) -> int: ...
    def new_initial_state(self, seed: Optional[int] = None) -> State:
        """The first state; ``seed`` replaces the ``seed`` option (only chance depends on it)."""

class State:
    """A state of a game, with OpenSpiel's method names and meanings."""

    @property
    def game_name(self) -> str: ...
    def current_player(self) -> int:
        """The player to move, or -4 (``TERMINAL``) when the game is over."""
    def legal_actions(self, player: Optional[int] = None) -> List[int]: ...
    def legal_actions_mask(self, num_actions: Optional[int] = None) -> List[int]: ...
    def apply_action(self, action: int) -> None:
        """Plays a legal action; ValueError (state unchanged) for an illegal one."""
    def is_terminal(self) -> bool: ...
    def returns(self) -> List[float]:
        """1 win, -1 loss, 0 draw or shared win (or while the game goes on), per player."""
    def rewards(self) -> List[float]: ...
    def is_chance_node(self) -> bool: ...
    def num_players(self) -> int: ...
    def clone(self) -> State: ...
    def __copy__(self) -> State: ...
    def __deepcopy__(self, memo: Any) -> State: ...
    def action_to_string(self, *args: int) -> str:
        """``action_to_string(action)`` or ``action_to_string(player, action)``."""
    def string_to_action(self, *args: Union[int, str]) -> int:
        """``string_to_action(text)`` or ``string_to_action(player, text)``."""
    def observation_tensor(self, player: Optional[int] = None) -> npt.NDArray[np.float32]:
        """What ``player`` may see, flat (reshape with the game's observation_tensor_shape)."""
    def history(self) -> List[int]: ...
    def move_number(self) -> int: ...
    def notation(self) -> Optional[str]:
        """The position in the game's notation; None for hidden information (Mathable)."""

class Engine:
    """A computer player (``engine:level=5``, ``random:seed=3``, ...) of one game."""

    def __init__(self, name: str, spec: str = "engine") -> None: ...
    def choose(self, state: State) -> int:
        """The action chosen for the player to move in ``state``."""
    def step(self, state: State) -> int: ...

class VecEnv:
    """Many games of one kind stepped together; finished games start again at once."""

    def __init__(self, name: str, num_envs: int, seed: int = 0, **options: Any) -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def num_envs(self) -> int: ...
    @property
    def num_distinct_actions(self) -> int: ...
    @property
    def num_players(self) -> int: ...
    @property
    def observation_shape(self) -> List[int]: ...
    def legal_mask(self) -> npt.NDArray[np.bool_]:
        """bool ``(num_envs, num_distinct_actions)``."""
    def observation(self) -> npt.NDArray[np.float32]:
        """float32 ``(num_envs, *observation_shape)``, each from its player to move."""
    def current_player(self) -> npt.NDArray[np.int64]: ...
    def episode_seeds(self) -> npt.NDArray[np.uint64]:
        """The seeds the current games started from (``new_initial_state(seed=...)``)."""
    def step(
        self, actions: npt.NDArray[np.int64]
    ) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
        """``(rewards (num_envs, num_players), terminations (num_envs,))``; ended games restart."""
    def reset(self, seed: int = 0) -> None: ...
    def __len__(self) -> int: ...

def load_game(name: str, **options: Any) -> Game:
    """Game ``name`` of ``GAMES`` with its options (``seed`` seeds chance)."""

def game_options(name: str) -> List[str]: ...
def player_kinds(name: str) -> List[Tuple[str, str]]: ...
def analyze(state: State, time: float = 1.0) -> List[Dict[str, Any]]:
    """Every legal action's value, best first: ``action``, ``move``, ``score``, ``exact``, ``value``."""

def solve(state: State, time: float = 10.0) -> Dict[int, int]:
    """Every legal action's exact score; ValueError where the solver does not answer in time."""
