"""Many games stepped together in Rust: ``VecEnv(name, num_envs, seed)``.

>>> import numpy as np
>>> from tabletop.vector import VecEnv
>>> envs = VecEnv("connect", 4, seed=1)
>>> mask = envs.legal_mask()            # bool (4, 7)
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
    """One uniformly random legal action per row of a legal mask, chosen without a Python loop.

    Each row first draws any action id; where it is illegal, the row draws again among its
    legal ids (found with one binary search per row in the flattened legal ids). Every legal
    action is equally likely: 1/A + (A - L)/A * 1/L = 1/L. Every row needs a legal action.
    """
    n, a = mask.shape
    row_starts = _row_starts(n, a)
    actions = (rng.random(n) * a).astype(np.int64)
    redraw = np.flatnonzero(~mask.ravel()[row_starts[:-1] + actions])
    if redraw.size:
        actions[redraw] = _among_legal(mask[redraw], rng)
    return actions


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
