"""Many games stepped together in Rust: ``VecEnv(name, num_envs, seed)``.

>>> import numpy as np
>>> from tabletop.vector import VecEnv
>>> import tabletop
>>> envs = VecEnv(tabletop.GAMES[0], 4, seed=1)   # any game of tabletop.GAMES
>>> mask = envs.legal_mask()            # bool (4, number of distinct actions)
>>> rng = np.random.default_rng(1)
>>> actions = random_actions(mask, rng)
>>> rewards, terminated = envs.step(actions)
>>> rewards.shape, terminated.shape
((4, 2), (4,))
"""

import numpy as np

from ._tabletop import VecEnv

__all__ = ["VecEnv", "random_actions"]


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a legal mask, chosen without a Python loop
    over the rows.

    Each row draws any action id until it draws a legal one (rejection sampling, a few rounds
    over the rows still drawing); rows still without one then draw among their legal ids (found
    with one binary search per row in the flattened legal ids). Every legal action is equally
    likely either way. Every row needs a legal action.
    """
    n, a = mask.shape
    row_starts = _row_starts(n, a)
    flat = mask.ravel()
    actions = (rng.random(n) * a).astype(np.int64)
    pending = np.flatnonzero(~flat[row_starts[:-1] + actions])
    for _ in range(_REJECTION_ROUNDS):
        if pending.size == 0:
            return actions
        draw = (rng.random(pending.size) * a).astype(np.int64)
        legal = flat[row_starts[pending] + draw]
        actions[pending[legal]] = draw[legal]
        pending = pending[~legal]
    if pending.size:
        actions[pending] = _among_legal(mask[pending], rng)
    return actions


# Rounds of rejection before the exact draw: sparse masks (Othello) settle most rows in a few
# cheap rounds, the rest take the exact draw.
_REJECTION_ROUNDS = 6


def _among_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row, drawn among the row's legal ids."""
    n, a = mask.shape
    row_starts = _row_starts(n, a)
    flat = np.flatnonzero(mask)
    bounds = np.searchsorted(flat, row_starts)  # each row's run in `flat`, and the end
    counts = bounds[1:] - bounds[:-1]
    if not counts.all():
        raise ValueError("a row of the mask has no legal action")
    pick = bounds[:-1] + (rng.random(n) * counts).astype(np.int64)
    return flat[pick] - row_starts[:-1]


def _row_starts(n: int, a: int) -> np.ndarray:
    """The first flat index of each of ``n`` rows of ``a`` values, and the end (cached)."""
    starts = _ROW_STARTS.get((n, a))
    if starts is None:
        starts = _ROW_STARTS[(n, a)] = np.arange(n + 1, dtype=np.int64) * a
    return starts


_ROW_STARTS: dict = {}
