"""A set of networks by position class, as GNU Backgammon splits its nets.

:class:`NetworkSet` sends each position to the evaluator of its class:

1. ``"bearoff"``: positions a bear-off database holds (:mod:`fastgen.bearoff`; both
   sides within its points and checkers), answered exactly from the database;
2. ``"race"``: the sides can no longer meet: no checker of one side has a checker of
   the other side ahead of it (:func:`classify`'s rule below);
3. ``"contact"``: everything else.

The class rule (:func:`classify`): with the side on roll's rearmost checker on its
point *a* (its bar counts as 25; 0 when it has borne off every checker) and the
opponent's rearmost on *its* point *b*, the opponent's checker on its point *b* sits on
the mover's point 25 - *b*, so the mover has an opponent checker ahead of its rearmost
exactly when 25 - *b* < *a*: contact is ``a + b > 25``, a race ``a + b <= 25``. The rule
is symmetric, so a position and its swapped sides share their class.

>>> import numpy as np, fastgen
>>> classify(np.stack([fastgen.STARTING_BOARD])).tolist()
['contact']
"""

from __future__ import annotations

import hashlib
from typing import Any, Sequence

import numpy as np

from fastgen._typing import ArrayLike
from fastgen.bearoff.evaluate import covered as bearoff_covered, evaluate as bearoff_evaluate
from fastgen.core.boards import as_boards
from fastgen.errors import InvalidNetworkError
from fastgen.nets.probs import checked_answer

__all__ = ["NetworkSet", "classify", "is_race", "rearmost", "CLASSES"]

#: The position classes, in the order a position is given to them.
CLASSES = ("bearoff", "race", "contact")


def rearmost(rows: np.ndarray) -> np.ndarray:
    """(N,) the point (1..24, 25 for the bar, 0 when none is left) of each (N, 25) row's
    rearmost checker, in the row's own numbering."""
    occupied = rows > 0
    last = 24 - np.argmax(occupied[:, ::-1], axis=1)  # the highest occupied index
    return np.where(occupied.any(axis=1), last + 1, 0)


def is_race(boards: np.ndarray) -> np.ndarray:
    """(N,) bool: the sides of (N, 2, 25) *boards* can no longer meet (the module's rule)."""
    return rearmost(boards[:, 1]) + rearmost(boards[:, 0]) <= 25


def classify(boards: ArrayLike, databases: Sequence[Any] = ()) -> np.ndarray:
    """(N,) the class of each board of (N, 2, 25) *boards*: ``"bearoff"`` where one of
    *databases* holds it, else ``"race"`` or ``"contact"`` (the module's rule)."""
    arr = as_boards(boards)
    out = np.where(is_race(arr), "race", "contact").astype(object)
    if databases:
        out[bearoff_covered(arr, *databases)] = "bearoff"
    return out.astype(str)


class NetworkSet:
    """An evaluator made of one evaluator per position class (module docstring): *contact*
    and *race* (compiled :class:`fastgen.nets.Network` objects, or any evaluators), and
    bear-off *databases* (exact where they hold a position; none by default). Without
    *race*, the contact evaluator answers races too.

    ``nset(boards) -> (N, 5)`` float64, each part's answer checked before it is used (its
    shape, then :func:`fastgen.nets.probs.check_probs`: a part answering None, NaN or an
    impossible probability raises :class:`~fastgen.errors.InvalidOutputError` naming
    it); its ``ordered`` is true when its parts' are, its
    :meth:`digest` combines theirs (for resumable rollouts), and
    :func:`fastgen.players.evaluators.greedy` of it is its player. :meth:`counts` tells how many
    positions of a batch went to each class.
    """

    def __init__(self, contact: Any, race: Any = None, *, databases: Sequence[Any] = (), name: str | None = None) -> None:
        if not callable(contact) or (race is not None and not callable(race)):
            raise InvalidNetworkError(f"a network set needs evaluators (callables), got contact={contact!r}, race={race!r}")
        self.contact = contact
        self.race = race if race is not None else contact
        self.databases = tuple(databases)
        if self.databases:
            bearoff_covered(np.zeros((0, 2, 25), dtype=np.int8), *self.databases)  # checks the databases
        self.ordered = bool(getattr(self.contact, "ordered", True) and getattr(self.race, "ordered", True))
        self.__name__ = name if name is not None else (
            f"set(contact={getattr(self.contact, '__name__', 'evaluator')}, race={getattr(self.race, '__name__', 'evaluator')}"
            + (f", {len(self.databases)} bear-off database(s))" if self.databases else ")")
        )

    def _classes(self, arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        exact = bearoff_covered(arr, *self.databases) if self.databases else np.zeros(arr.shape[0], dtype=bool)
        return exact, is_race(arr) & ~exact

    def __call__(self, boards: ArrayLike) -> np.ndarray:
        arr = as_boards(boards)
        exact, race = self._classes(arr)
        contact = ~(exact | race)
        out = np.empty((arr.shape[0], 5), dtype=np.float64)
        if exact.any():
            out[exact] = bearoff_evaluate(arr[exact], *self.databases)
        for mask, ev in ((race, self.race), (contact, self.contact)):
            if mask.any():
                part = np.ascontiguousarray(arr[mask])
                out[mask] = checked_answer(ev, part)  # a part's answer checked before it is used
        return out

    def counts(self, boards: ArrayLike) -> dict[str, int]:
        """How many of *boards* each class takes: ``{"bearoff": ..., "race": ..., "contact": ...}``."""
        arr = as_boards(boards)
        exact, race = self._classes(arr)
        return {"bearoff": int(exact.sum()), "race": int(race.sum()), "contact": int((~(exact | race)).sum())}

    def digest(self) -> str | None:
        """The SHA-256 (hex) of its parts' digests and its databases' contents; None when a
        part has no ``digest()`` (then a resumable rollout needs ``key=``)."""
        parts = []
        for ev in (self.contact, self.race):
            d = getattr(ev, "digest", None)
            if not callable(d):
                return None
            parts.append(str(d()))
        h = hashlib.sha256(b"fastgen-network-set/1\0" + "\0".join(parts).encode())
        for db in self.databases:
            h.update(type(db).__name__.encode() + b"\0")
            for name in sorted(vars(db)):
                value = getattr(db, name)
                if name == "source" or value is None:
                    continue  # where it was read from is not what it holds
                if isinstance(value, np.ndarray):
                    h.update(name.encode() + b"\0" + np.ascontiguousarray(value).tobytes())
                elif isinstance(value, (int, str, bool)):
                    h.update(f"{name}={value}\0".encode())
                else:  # a file's bytes (mapped)
                    h.update(name.encode() + b"\0" + bytes(memoryview(value)))
        return h.hexdigest()

    def __repr__(self) -> str:
        return f"<fastgen.nets.NetworkSet {self.__name__}>"
