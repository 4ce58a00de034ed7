"""A Connect bot on tabletop's line protocol (docs/PROTOCOL.md), written with the tabletop
package, for test_protocol.py. Its one argument says how it plays:
solver (the package's exact solver), random (seeded random legal moves), crash (exits at the
first `go`), hang (never answers)."""

import random
import re
import sys
import time

import tabletop


def main(mode):
    rng = random.Random(7)
    lines = {}
    game = None
    for raw in sys.stdin:
        key, _, rest = raw.rstrip("\n").partition(" ")
        lines[key] = rest
        if key == "variant":
            numbers = [int(n) for n in re.findall(r"\d+", rest)]
            game = tabletop.load_game("connect", width=numbers[0], height=numbers[1], connect=numbers[2])
        if key == "end":
            return
        if key != "go":
            continue
        if mode == "crash":
            sys.exit(3)
        if mode == "hang":
            time.sleep(60)
        legal = lines["legal"].split()
        if mode == "random":
            move = rng.choice(legal)
        else:
            state = game.new_initial_state()
            for m in lines["moves"].split():
                state.apply_action(state.string_to_action(m))
            values = tabletop.solve(state, time=60)
            best = max(values, key=values.get)
            move = state.action_to_string(best)
        print(f"move {move}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
