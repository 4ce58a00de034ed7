#!/usr/bin/env python3
"""Test bots for tabletop's line protocol (docs/PROTOCOL.md):

    bot.py prefer MOVE...   the first of MOVES that is legal, else the first legal move
    bot.py random SEED      a random legal move (seeded, so games replay)
    bot.py crash            exits with status 3 when asked for a move
    bot.py hang             never answers (sleeps)
    bot.py garbage          answers `hello` instead of `move MOVE`
    bot.py always MOVE      answers `move MOVE` whatever the legal moves (illegal sooner or later)

Options (before the mode): `--log FILE` writes every line received to FILE; `--only-seat N`
misbehaves (crash, hang, garbage) only when seated N, and otherwise plays the first legal move.
"""

import random
import sys
import time


def main(args):
    log, only_seat = None, None
    while args[0].startswith("--"):
        if args[0] == "--log":
            log = open(args[1], "a")
        elif args[0] == "--only-seat":
            only_seat = args[1]
        args = args[2:]
    mode, rest = args[0], args[1:]
    rng = random.Random(int(rest[0]) if mode == "random" else 0)
    legal, seat = [], None
    for line in sys.stdin:
        if log:
            log.write(line)
            log.flush()
        words = line.split()
        if not words:
            continue
        if words[0] == "seat":
            seat = words[1]
        elif words[0] == "legal":
            legal = words[1:]
        elif words[0] == "end":
            return
        elif words[0] == "go":
            if only_seat is not None and seat != only_seat:
                move = legal[0]
            elif mode == "prefer":
                move = next((m for m in rest if m in legal), legal[0])
            elif mode == "random":
                move = rng.choice(legal)
            elif mode == "crash":
                print("bot.py: crashing on purpose", file=sys.stderr)
                sys.exit(3)
            elif mode == "hang":
                time.sleep(3600)
                return
            elif mode == "garbage":
                print("hello", flush=True)
                continue
            else:  # always
                move = rest[0]
            print("# thinking", flush=True)  # comments are ignored
            print("move", move, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
