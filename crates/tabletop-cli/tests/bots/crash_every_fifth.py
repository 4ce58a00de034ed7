#!/usr/bin/env python3
"""A Connect bot for the tournament tests: it plays the first legal move, except that every
fifth game it is started for (counted in the file given as its argument) it exits at once
with status 3, before answering: a crash the tournament must score as a forfeit."""

import fcntl
import sys


def game_number(counter):
    """Counts this start in the file `counter` (locked: bots may start at once)."""
    with open(counter, "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.seek(0)
        text = f.read().strip()
        number = int(text) + 1 if text else 1
        f.seek(0)
        f.truncate()
        f.write(str(number))
        return number


def main():
    number = game_number(sys.argv[1])
    legal = []
    for line in sys.stdin:
        key, _, rest = line.strip().partition(" ")
        if key == "tabletop" and number % 5 == 0:
            sys.exit(3)
        if key == "legal":
            legal = rest.split()
        elif key == "go":
            print("move", legal[0], flush=True)
        elif key == "end":
            return


if __name__ == "__main__":
    main()
