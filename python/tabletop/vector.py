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

    Each row's legal actions get a random key and the largest key wins (every legal action is
    equally likely).
    """
    keys = rng.random(mask.shape, dtype=np.float32)
    keys += mask  # legal keys lie in [1, 2), illegal ones in [0, 1)
    return keys.argmax(axis=1).astype(np.int64)
