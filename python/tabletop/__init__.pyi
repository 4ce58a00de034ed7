from ._tabletop import GAMES as GAMES
from ._tabletop import Engine as Engine
from ._tabletop import Game as Game
from ._tabletop import State as State
from ._tabletop import VecEnv as VecEnv
from ._tabletop import analyze as analyze
from ._tabletop import game_options as game_options
from ._tabletop import load_game as load_game
from ._tabletop import player_kinds as player_kinds
from ._tabletop import solve as solve

TERMINAL: int
