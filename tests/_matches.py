"""Seeded random matches with every feature a ``.mat`` file records, for the .mat tests.

Doubles, takes and passes, resignations (offered before or after rolling, by either
player, accepted or rejected), Crawford games, long cube values and, optionally, a last
game left after a roll that was not yet played.
"""

from __future__ import annotations

import numpy as np

from fastgen.games.match import Match


def random_match(
    length: int,
    seed: int,
    *,
    cube_cap: int = 64,
    p_double: float = 0.08,
    p_drop: float = 0.3,
    p_resign: float = 0.01,
    max_games: int = 8,
    stop_after_roll: bool = False,
    names=("Alice", "Bob Smith"),
) -> Match:
    """A match played with random plays and cube and resignation actions.

    A resignation after a roll is offered only when the roll has two legal plays or more
    and is not the opening roll, and *stop_after_roll* stops in such a position: those
    are the cases where GNU Backgammon's import and export keep the roll unplayed (it
    plays a forced move, and writes an unplayed opening roll in the left column).
    """
    rng = np.random.default_rng(seed)
    m = Match(length, seed=seed, names=names, cube_cap=cube_cap)
    while not m.over and len(m.games) < max_games:
        g = m.new_game()
        while not g.over:
            if g.dice is None and g.turn is not None:
                if g.may_double and rng.random() < p_double:
                    g.double()
                    if rng.random() < p_drop:
                        g.drop()
                        break
                    g.take()
                if rng.random() < p_resign:
                    g.resign(int(rng.integers(1, 4)), player=int(rng.integers(2)))
                    if rng.random() < 0.6:
                        g.accept_resignation()
                        break
                    g.reject_resignation()
            opening = g.turn is None
            g.roll()
            plays = g.legal_plays()
            if not opening and len(plays) > 1:
                if rng.random() < p_resign:  # either side, while the roller holds its dice
                    g.resign(int(rng.integers(1, 4)), player=int(rng.integers(2)))
                    g.accept_resignation()
                    break
                if stop_after_roll and rng.random() < 0.02:
                    return m
            g.play(plays.boards[rng.integers(len(plays))])
    return m


def kept_indices(game) -> list[int]:
    """Indices in *game*'s record of the actions a match file keeps: all but rejected
    resignation offers (an offer and its rejection), which .mat and .xg files have no
    place for."""
    record = list(game.record)
    kept, i = [], 0
    while i < len(record):
        if record[i].kind == "resign" and i + 1 < len(record) and record[i + 1].kind == "reject":
            i += 2
            continue
        kept.append(i)
        i += 1
    return kept


def written_record(game):
    """*game*'s record without rejected resignation offers (a .mat file has no place for
    them): what reading its ``.mat`` text gives back."""
    return [game.record[i] for i in kept_indices(game)]
