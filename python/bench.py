#!/usr/bin/env python3
"""Random-play throughput on one core: tabletop's VecEnv against OpenSpiel's Python loop.

    python python/bench.py --game connect=connect_four --game reversi=othello [--seconds 1] [--rounds 5] [--envs 4096]

For each ``--game TABLETOP_NAME=OPENSPIEL_NAME`` (the game with its default options on both
sides; the figures in docs/PYTHON.md are Connect Four 7x6 and Othello) it measures steps per second of uniformly random legal play:

- tabletop: ``tabletop.vector.VecEnv`` with ``--envs`` games, random legal actions chosen from
  the legal mask with numpy (seeded), games restarting as they end;
- OpenSpiel (when ``pyspiel`` can be imported, e.g. ``pip install open_spiel`` in another venv
  and ``--openspiel-python`` pointing at its python): the usual Python loop over one state,
  ``random.choice(state.legal_actions())`` then ``apply_action``, a new game at each end.

Both run pinned to one CPU when the machine allows it, in alternating rounds of ``--seconds``
each; each side's figure is its best round, so that other work on a shared machine disturbs
both alike. OpenSpiel is optional: without it the script says so and measures tabletop alone.
"""

import argparse
import json
import os
import subprocess
import sys
import time

# Import the installed package, not its sources beside this script (they lack the native module).
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

OPENSPIEL_LOOP = r"""
import json, random, sys, time
import pyspiel
name, seconds = sys.argv[1], float(sys.argv[2])
game = pyspiel.load_game(name)
rng = random.Random(1)
steps, state = 0, game.new_initial_state()
start = time.perf_counter()
deadline = start + seconds
while True:
    for _ in range(1000):
        if state.is_terminal():
            state = game.new_initial_state()
        state.apply_action(rng.choice(state.legal_actions()))
        steps += 1
    if time.perf_counter() >= deadline:
        break
print(json.dumps({"steps": steps, "seconds": time.perf_counter() - start}))
"""


def pin_one_core() -> None:
    """Runs this process (and its children) on one CPU, where the system lets us."""
    if hasattr(os, "sched_setaffinity"):
        try:
            os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        except OSError:
            pass


def tabletop_steps_per_second(name: str, options: dict, envs: int, seconds: float) -> float:
    import numpy as np

    from tabletop.vector import VecEnv, random_actions

    vec = VecEnv(name, envs, seed=1, **options)
    rng = np.random.default_rng(1)
    # A short warm-up, then whole calls until the time is up.
    for _ in range(3):
        vec.step(random_actions(vec.legal_mask(), rng))
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(10):
            vec.step(random_actions(vec.legal_mask(), rng))
        steps += 10 * envs
    return steps / (time.perf_counter() - start)


def openspiel_steps_per_second(python: str, name: str, seconds: float) -> float:
    out = subprocess.run(
        [python, "-c", OPENSPIEL_LOOP, name, str(seconds)], capture_output=True, text=True, check=True
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    return result["steps"] / result["seconds"]


def has_openspiel(python: str) -> bool:
    try:
        return subprocess.run([python, "-c", "import pyspiel"], capture_output=True).returncode == 0
    except OSError:
        return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=1.0, help="time per round (default 1)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per side and game (default 5)")
    parser.add_argument("--envs", type=int, default=4096, help="games in the VecEnv (default 4096)")
    parser.add_argument(
        "--openspiel-python",
        default=sys.executable,
        help="a python that can import pyspiel (default: this one)",
    )
    parser.add_argument(
        "--game",
        action="append",
        required=True,
        metavar="TABLETOP=OPENSPIEL",
        help="a game to measure: its name here and in OpenSpiel (repeat for more)",
    )
    args = parser.parse_args()
    games = []
    for pair in args.game:
        name, sep, spiel_name = pair.partition("=")
        if not sep or not name or not spiel_name:
            parser.error(f"--game {pair!r}: expected TABLETOP=OPENSPIEL, e.g. reversi=othello")
        games.append((name, name, {}, spiel_name))
    pin_one_core()
    openspiel = has_openspiel(args.openspiel_python)
    if not openspiel:
        print(
            f"OpenSpiel not found ({args.openspiel_python} cannot import pyspiel): measuring tabletop alone. "
            "Install it in another venv (pip install open_spiel) and pass --openspiel-python.",
            file=sys.stderr,
        )
    print(
        f"random play, one core, best of {args.rounds} alternating rounds of {args.seconds:g} s, "
        f"VecEnv of {args.envs} games"
    )
    print(f"{'game':<18} {'tabletop VecEnv':>18} {'OpenSpiel loop':>18} {'ratio':>8}")
    for title, name, options, spiel_name in games:
        ours = theirs = 0.0
        for _ in range(max(1, args.rounds)):
            ours = max(ours, tabletop_steps_per_second(name, options, args.envs, args.seconds))
            if openspiel:
                theirs = max(theirs, openspiel_steps_per_second(args.openspiel_python, spiel_name, args.seconds))
        if openspiel:
            print(f"{title:<18} {ours / 1e6:>12.2f} M/s {theirs / 1e6:>12.3f} M/s {ours / theirs:>7.1f}x")
        else:
            print(f"{title:<18} {ours / 1e6:>12.2f} M/s {'-':>18} {'-':>8}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
