"""Single-step replay of a turn, for people: judge one step at a time and say why.

The compiled core answers "which plays are legal" in bulk; this module answers the
questions a person asks while moving checkers one die at a time: *may I play this step*,
and *if not, which rule forbids it* (docs/RULES.md R15). It works on plain lists (the side on
roll's row ``mine`` and the opponent's row ``opp``, 25 counts each, index 24 = bar) and
is private: :mod:`fastgen.core.validate` and :mod:`fastgen.core.notation` build on it.

Points are in the mover's numbering: 1..24, 25 = bar, 0 = off. My point ``p`` is the
opponent's point ``25 - p``, i.e. index ``24 - p`` of its row (R1).
"""

from __future__ import annotations

from fastgen.errors import IllegalReason

BAR = 25
OFF = 0


def index(point: int) -> int:
    """Index in a row of the mover's *point* (25 = bar -> 24)."""
    return 24 if point == BAR else point - 1


def opp_count(opp, point: int) -> int:
    """Opposing checkers on the mover's *point* (1..24)."""
    return opp[24 - point]


def all_home(mine) -> bool:
    """R9: every remaining checker (bar included) is on points 1..6."""
    return not any(mine[6:25])


def highest_point(mine) -> int:
    """The mover's highest occupied point (25 if a checker is on the bar, 0 if none)."""
    for i in range(24, -1, -1):
        if mine[i]:
            return i + 1
    return 0


def step_problem(mine, opp, source: int, target: int, die: int, intermediate: bool = False):
    """Why the single step *source* -> *target* with *die* is illegal, or ``None`` if legal.

    *intermediate* marks a landing that is not the end of the checker's move, so a
    blocked point there is reported as :attr:`IllegalReason.INTERMEDIATE_BLOCKED`.
    The caller guarantees that *die* matches the distance (exactly, or more for a
    bear-off).
    """
    if mine[24] and source != BAR:
        return IllegalReason.BAR_FIRST
    if not mine[index(source)]:
        return IllegalReason.NO_CHECKER
    if target == OFF:
        if not all_home(mine):
            return IllegalReason.BEAROFF_NOT_ALLOWED
        if die > source and highest_point(mine) > source:
            return IllegalReason.BEAROFF_HIGHER_OCCUPIED
        return None
    if opp_count(opp, target) >= 2:
        return IllegalReason.INTERMEDIATE_BLOCKED if intermediate else IllegalReason.LANDING_BLOCKED
    return None


def apply_step(mine, opp, source: int, target: int):
    """Return new ``(mine, opp)`` after the (legal) step; a blot on the target is hit (R7)."""
    mine = list(mine)
    mine[index(source)] -= 1
    if target != OFF:
        mine[target - 1] += 1
        if opp_count(opp, target) == 1:
            opp = list(opp)
            opp[24 - target] = 0
            opp[24] += 1
    return mine, opp


def target_of(source: int, die: int) -> int:
    """Where a checker on *source* goes with *die* (0 = off when it passes point 1)."""
    return max(source - die, OFF)


def legal_single_steps(mine, opp, die: int):
    """Every legal single step ``(source, target)`` with *die* (R6, R8, R9), highest first."""
    steps = []
    sources = [BAR] if mine[24] else [p for p in range(24, 0, -1) if mine[p - 1]]
    for source in sources:
        target = target_of(source, die)
        if step_problem(mine, opp, source, target, die) is None:
            steps.append((source, target))
    return steps


def die_sequences(source: int, target: int, dice: tuple) -> list:
    """The ways to move one checker from *source* to *target* with some of *dice*.

    Returns a list of tuples of die values in playing order; every value is taken from
    the multiset *dice* (the unused dice). Moves to a point need exact sums; a move off
    the board needs every die but the last to stop on a point and the last to reach
    or pass the edge (R9 judges later whether that bear-off is allowed).
    """
    results = []
    seen = set()

    def extend(position: int, remaining: tuple, used: tuple):
        for k, die in enumerate(remaining):
            if remaining.index(die) != k:
                continue  # equal dice give the same sequences
            rest = remaining[:k] + remaining[k + 1:]
            landing = position - die
            if target == OFF:
                if landing <= 0:
                    seq = used + (die,)
                    if seq not in seen:
                        seen.add(seq)
                        results.append(seq)
                elif rest:
                    extend(landing, rest, used + (die,))
            else:
                if landing == target:
                    seq = used + (die,)
                    if seq not in seen:
                        seen.add(seq)
                        results.append(seq)
                elif landing > target and rest:
                    extend(landing, rest, used + (die,))

    if 0 <= target < source:
        extend(source, tuple(dice), ())
    return results


def roll_dice(dice: tuple) -> tuple:
    """The dice a roll gives to play: four equal dice for a double (R5)."""
    d1, d2 = dice
    return (d1,) * 4 if d1 == d2 else (max(d1, d2), min(d1, d2))


def remove_die(remaining: tuple, die: int) -> tuple:
    """*remaining* without one die of value *die*."""
    k = remaining.index(die)
    return remaining[:k] + remaining[k + 1:]
