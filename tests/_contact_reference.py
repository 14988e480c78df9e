"""The "contact" features in plain Python, straight from the table in
fastgen/core/features.py, sharing no code with the compiled scheme: every roll's dice
sequences are walked one step at a time (the compiled code works out sets of rolls by
distance instead)."""

from __future__ import annotations

import numpy as np

ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]


def _sequences(a: int, b: int) -> list[list[int]]:
    """The ways to use roll (a, b): one die, both in either order; doubles up to four steps."""
    if a == b:
        return [[a] * k for k in range(1, 5)]
    return [[a], [b], [a, b], [b, a]]


def _reaches(start: int, target: int, direction: int, a: int, b: int, blocked: set) -> bool:
    """Whether a checker at *start* lands on *target* moving by *direction* (+1 up, -1
    down) with some sequence of the roll, stopping on no point of *blocked* before it."""
    for seq in _sequences(a, b):
        at, ok = start, True
        for i, die in enumerate(seq):
            at += direction * die
            if i < len(seq) - 1 and at in blocked:
                ok = False
                break
        if ok and at == target:
            return True
    return False


def _weight(a: int, b: int) -> int:
    return 1 if a == b else 2


def _side(me: list[int], opp: list[int]) -> tuple[list[np.float32], int]:
    f32 = np.float32
    pips = sum((i + 1) * me[i] for i in range(24)) + 25 * me[24]
    held = {i + 1 for i in range(24) if me[i] >= 2}
    # the other side's checkers and held points in my numbering (its point q is my 25 - q, its bar my 0)
    theirs = [(25 - (q + 1), opp[q]) for q in range(24) if opp[q]] + ([(0, opp[24])] if opp[24] else [])
    their_held = {25 - (q + 1) for q in range(24) if opp[q] >= 2}
    blots = [p for p in range(1, 25) if me[p - 1] == 1]
    sources = [0] if opp[24] else [u for u, _ in theirs]
    shots = sum(_weight(a, b) for a, b in ROLLS
                if any(_reaches(u, p, +1, a, b, held) for p in blots for u in sources if u < p))
    rear = 25 if me[24] else max([i + 1 for i in range(24) if me[i]], default=0)
    if rear == 0:
        escapes = 0
    else:
        front = [p for p in their_held if rear - 12 <= p < rear]
        if not front:
            escapes = 36
        else:
            lowest = min(front)
            escapes = sum(_weight(a, b) for a, b in ROLLS
                          if any(_reaches(rear, t, -1, a, b, their_held) for t in range(1, lowest) if t not in their_held))
    prime = run = 0
    for p in range(1, 25):
        run = run + 1 if p in held else 0
        prime = max(prime, run)
    home = sum(1 for p in range(1, 7) if p in held)
    anchors = sum(1 for p in range(19, 25) if p in held)
    back = sum(me[18:24]) + me[24]
    their_rear = min([u for u, _ in theirs], default=26)
    past = sum(me[p - 1] for p in range(1, 25) if p < their_rear)
    dance = (f32(home) / f32(6)) * (f32(home) / f32(6)) if opp[24] else f32(0)
    return [f32(pips) / f32(100), f32(shots) / f32(36), f32(len(blots)) / f32(5), f32(escapes) / f32(36),
            f32(prime) / f32(6), f32(home) / f32(6), f32(anchors) / f32(3), f32(back) / f32(15), f32(dance),
            f32(past) / f32(15)], pips


def contact_features(board: np.ndarray) -> np.ndarray:
    """(22,) float32 of one (2, 25) board, the side on roll in row 1."""
    me, opp = [int(v) for v in board[1]], [int(v) for v in board[0]]
    a, pa = _side(me, opp)
    b, pb = _side(opp, me)

    def rear(side):
        return 25 if side[24] else max([i + 1 for i in range(24) if side[i]], default=0)

    race = np.float32(0 if rear(me) + rear(opp) > 25 else 1)
    return np.array(a + b + [race, np.float32(pb - pa) / np.float32(50)], dtype=np.float32)
