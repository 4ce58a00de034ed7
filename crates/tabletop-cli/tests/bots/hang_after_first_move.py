#!/usr/bin/env python3
"""A bot for tabletop's line protocol (docs/PROTOCOL.md) that plays its first move (the first
legal one), then never answers again: `tabletop bot` must lose such a game on time."""

import sys
import time

moved = False
legal = []
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "legal":
        legal = words[1:]
    elif words[0] == "end":
        break
    elif words[0] == "go":
        if moved:
            time.sleep(3600)
            break
        moved = True
        print("move", legal[0], flush=True)
