#!/usr/bin/env python3
"""The Reversi document's computer player in Python, against the tabletop package.

A fixed-depth minimax with alpha-beta pruning whose evaluation sums the document's square
weights (corners 120, X-squares -40, ...) over the mover's discs minus the opponent's; a
finished game is worth 10000 plus the disc difference (the same player as tabletop's
``classic:depth=N``, crates/tabletop/src/games/reversi/classic.rs).

Score it against the engine's levels:

    python examples/reversi_alphabeta.py --depth 4 --games 10 --opponent engine:level=3

It plays each game twice with colours swapped (seeded random first moves make the games
differ) and prints wins, draws and losses.
"""

import argparse
import random
import sys

import numpy as np

import tabletop

# The document's square weights, row by row from a1 (action id = 8 * row + column).
SQUARE_WEIGHTS = np.array(
    [
        120, -20, 20, 5, 5, 20, -20, 120,
        -20, -40, -5, -5, -5, -5, -40, -20,
        20, -5, 15, 3, 3, 15, -5, 20,
        5, -5, 3, 3, 3, 3, -5, 5,
        5, -5, 3, 3, 3, 3, -5, 5,
        20, -5, 15, 3, 3, 15, -5, 20,
        -20, -40, -5, -5, -5, -5, -40, -20,
        120, -20, 20, 5, 5, 20, -20, 120,
    ],
    dtype=np.float32,
)

DECIDED = 10_000


def evaluate(state: "tabletop.State", player: int) -> int:
    """The document's evaluation for ``player``: its weighted discs minus the opponent's."""
    planes = state.observation_tensor(player).reshape(3, 64)  # mine, theirs, empty
    if state.is_terminal():
        # The disc difference with the empty squares counted for the winner.
        diff = int(planes[0].sum() - planes[1].sum())
        empties = int(planes[2].sum())
        if diff > 0:
            return DECIDED + diff + empties
        if diff < 0:
            return -DECIDED + diff - empties
        return 0
    return int(SQUARE_WEIGHTS @ planes[0] - SQUARE_WEIGHTS @ planes[1])


def minimax(state: "tabletop.State", depth: int, alpha: int, beta: int) -> int:
    """Negamax with alpha-beta: the value of a game going on for the player to move (the
    callers value finished games themselves, from their own side)."""
    player = state.current_player()
    if depth == 0:
        return evaluate(state, player)
    best = -(1 << 30)
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        # A player without a placement passes by an explicit action (64): a ply like any other.
        value = evaluate(child, player) if child.is_terminal() else -minimax(child, depth - 1, -beta, -alpha)
        best = max(best, value)
        alpha = max(alpha, value)
        if alpha >= beta:
            break
    return best


def choose(state: "tabletop.State", depth: int) -> int:
    """The best action at ``depth`` (the first in a1..h8 order among equals)."""
    player = state.current_player()
    best_action, best = None, -(1 << 30)
    alpha, beta = -(1 << 30), 1 << 30
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        value = evaluate(child, player) if child.is_terminal() else -minimax(child, depth - 1, -beta, -alpha)
        if value > best:
            best_action, best = action, value
        alpha = max(alpha, value)
    return best_action


def play(depth: int, opponent: "tabletop.Engine", our_seat: int, opening: int, seed: int) -> float:
    """One game; our result (1 win, 0 draw, -1 loss). ``opening`` random plies start it."""
    state = tabletop.load_game("reversi").new_initial_state()
    rng = random.Random(seed)
    for _ in range(opening):
        state.apply_action(rng.choice(state.legal_actions()))
    while not state.is_terminal():
        if state.current_player() == our_seat:
            state.apply_action(choose(state, depth))
        else:
            state.apply_action(opponent.choose(state))
    return state.returns()[our_seat]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--depth", type=int, default=4, help="search depth in plies (default 4)")
    parser.add_argument("--games", type=int, default=4, help="game pairs (default 4)")
    parser.add_argument("--opponent", default="engine:level=1", help="a tabletop player spec (default engine:level=1)")
    parser.add_argument("--opening", type=int, default=4, help="random plies before the players take over")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    opponent = tabletop.Engine("reversi", args.opponent)
    tally = {1.0: 0, 0.0: 0, -1.0: 0}
    for game in range(args.games):
        for seat in (0, 1):
            tally[play(args.depth, opponent, seat, args.opening, args.seed + game)] += 1
    print(
        f"alpha-beta depth {args.depth} vs {args.opponent}: "
        f"{tally[1.0]} won, {tally[0.0]} drawn, {tally[-1.0]} lost"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
