#!/usr/bin/env python3
"""A Connect-N bot for tabletop's line protocol (docs/PROTOCOL.md), Python 3 standard library only.

    tabletop match connect --player 'external:cmd="python3 examples/connect_bot.py"' \
        --player connect:level=3 --games 20

It plays a simple but sound strategy, in this order:
  1. win now if a column completes a line;
  2. block the opponent's winning column;
  3. never play under a square where the opponent would then win;
  4. prefer the move that makes the most open lines of its own, then the columns nearest the centre.
"""

import re
import sys


def read_variant(text):
    """Width, height and line length from the `variant` line (`ConnectVariant { width: 7, ... }`)."""
    fields = dict((k, int(v)) for k, v in re.findall(r"(\w+): (\d+)", text))
    return fields.get("width", 7), fields.get("height", 6), fields.get("line", 4)


class Board:
    def __init__(self, width, height, line):
        self.width, self.height, self.line = width, height, line
        self.cells = [[0] * height for _ in range(width)]  # cells[column][row], row 0 at the bottom
        self.heights = [0] * width

    @classmethod
    def from_notation(cls, width, height, line, notation):
        """The position from its notation: the columns played, from 1 (`0` is a forfeited turn)."""
        board = cls(width, height, line)
        player = 1
        for ch in notation.strip():
            column = int(ch)
            if column > 0:
                board.drop(column - 1, player)
            player = 3 - player
        return board, player

    def drop(self, column, player):
        self.cells[column][self.heights[column]] = player
        self.heights[column] += 1

    def undo(self, column):
        self.heights[column] -= 1
        self.cells[column][self.heights[column]] = 0

    def at(self, column, row):
        if 0 <= column < self.width and 0 <= row < self.height:
            return self.cells[column][row]
        return -1

    def wins_at(self, column, row, player):
        """Does `player` have a line through (column, row)?"""
        for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
            count = 1
            for sign in (1, -1):
                c, r = column + sign * dc, row + sign * dr
                while self.at(c, r) == player:
                    count += 1
                    c, r = c + sign * dc, r + sign * dr
            if count >= self.line:
                return True
        return False

    def winning_move(self, column, player):
        row = self.heights[column]
        if row >= self.height:
            return False
        self.cells[column][row] = player
        won = self.wins_at(column, row, player)
        self.cells[column][row] = 0
        return won

    def open_lines(self, player):
        """How many windows of `line` squares hold pieces of `player` and none of the other."""
        total = 0
        for column in range(self.width):
            for row in range(self.height):
                for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                    cells = [self.at(column + i * dc, row + i * dr) for i in range(self.line)]
                    if -1 not in cells and (3 - player) not in cells and player in cells:
                        total += cells.count(player) ** 2
        return total


def choose(board, player, legal):
    opponent = 3 - player
    columns = [int(m) - 1 for m in legal]
    for column in columns:
        if board.winning_move(column, player):
            return column
    for column in columns:
        if board.winning_move(column, opponent):
            return column
    centre = (board.width - 1) / 2

    def score(column):
        board.drop(column, player)
        gives_win = board.heights[column] < board.height and board.winning_move(column, opponent)
        lines = board.open_lines(player)
        board.undo(column)
        return (not gives_win, lines, -abs(column - centre))

    return max(columns, key=score)


def main():
    width = height = line = None
    seat = 1
    position, legal = "", []
    for raw in sys.stdin:
        words = raw.strip().split(" ", 1)
        key, rest = words[0], (words[1] if len(words) > 1 else "")
        if key == "variant":
            width, height, line = read_variant(rest)
        elif key == "seat":
            seat = int(rest)
        elif key == "position":
            position = rest
        elif key == "legal":
            legal = rest.split()
        elif key == "go":
            board, player = Board.from_notation(width, height, line, position)
            column = choose(board, player, legal)
            print("move", column + 1, flush=True)
        elif key == "end":
            if "-v" in sys.argv:
                print(f"seat {seat}: {rest}", file=sys.stderr)
            return


if __name__ == "__main__":
    main()
