"""A directory of finished chunks with a manifest: what ``out=DIR`` keeps of a long run.

:func:`fastgen.rollout` (:mod:`fastgen.sim.rollout.chunks`) and :func:`fastgen.rollout_plays`
(:mod:`fastgen.sim.decide.chunks`) both keep their finished chunks this way:
``DIR/manifest.json`` records the run (its format name, the ``run`` fields a rerun must
match, the run's ``identity`` and options that may differ), and each finished chunk of
items ``lo..hi-1`` is one ``DIR/part-<lo>-<hi>.npz`` holding its arrays, the same
``identity`` and its ``range`` ``[lo, hi]``. Every file is written through :func:`fastgen._util.atomic_write` (a
temporary file beside it, synced and renamed in), so a file is complete or absent.

The identity is the SHA-256 of everything that determines the result (the ``run``
fields, the evaluator's or policy's content: see :func:`evaluator_identity`). A part is
used only when it carries the run's identity, has the expected shapes and values the
run can produce; any other part raises :class:`~fastgen.errors.RolloutStoreError`
naming the file (``resume="recompute"`` plays such a chunk again and overwrites it). A
part that cannot be read at all (truncated, damaged) is played again.
A directory written by an older format (no identity) is refused: its results cannot be
tied to the run.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from fastgen._util import atomic_write
from fastgen.errors import InvalidArgumentError, RolloutStoreError
from fastgen.players.evaluators import GnubgNNEvaluator

__all__ = ["MANIFEST", "ChunkStore", "read_manifest", "run_digest", "evaluator_identity", "RESUME_MODES"]

MANIFEST = "manifest.json"

#: What ``resume=`` takes: ``"check"`` (default: a part that does not fit the run raises
#: RolloutStoreError naming it) or ``"recompute"`` (such a part is played again and
#: overwritten).
RESUME_MODES = ("check", "recompute")


def run_digest(fields: dict) -> str:
    """The SHA-256 (hex) of *fields* as canonical JSON (sorted keys)."""
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def evaluator_identity(evaluator: Any, key: Any, what: str) -> str | None:
    """What identifies the content of *evaluator* (an evaluator or a policy) in a run's
    digest: *key* when the caller gives one (a non-empty text); else the evaluator's own
    ``digest()`` (:meth:`fastgen.nets.Network.digest`,
    :meth:`fastgen.players.evaluators.ReferenceNetwork.digest`: its weights and input
    schemes); GNU Backgammon's evaluation by its name (plies) and gnubg-nn's version;
    None for an opaque callable (a run that cannot be resumed)."""
    if key is not None:
        if not isinstance(key, str) or not key:
            raise InvalidArgumentError(f"key must be a non-empty text naming the {what}'s content, got {key!r}")
        return "key:" + key
    if isinstance(evaluator, GnubgNNEvaluator):
        try:
            from importlib.metadata import version  # lazy: only for a gnubg evaluator
            nn = version("gnubg-nn")
        except Exception:  # not installed as a distribution: the name alone
            nn = "unknown"
        return f"gnubg:{evaluator.name}:gnubg-nn {nn}"
    digest = getattr(evaluator, "digest", None)
    found = digest() if callable(digest) else None
    return None if found is None else "digest:" + str(found)


def read_manifest(path: Any, fmt: str, what: str) -> dict:
    """The manifest in directory *path* (a dict with ``format`` *fmt* and a ``run`` dict),
    or RolloutStoreError naming the file and *what* it should have been."""
    file = os.path.join(os.fspath(path), MANIFEST)
    try:
        with open(file, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as exc:
        raise RolloutStoreError(f"cannot read the rollout manifest {file!r}: {exc}") from exc
    if isinstance(data, dict) and isinstance(data.get("format"), str) and data["format"] != fmt \
            and data["format"].split("/")[0] == fmt.split("/")[0]:
        raise RolloutStoreError(
            f"{file!r} is a run directory of an older format ({data['format']!r}, this fastgen writes {fmt!r}) "
            "whose parts carry no run identity: delete the directory or give another out="
        )
    if not isinstance(data, dict) or data.get("format") != fmt or not isinstance(data.get("run"), dict) \
            or not isinstance(data.get("identity"), str):
        raise RolloutStoreError(f"{file!r} is not a manifest of {what} ({fmt})")
    return data


def _part_name(lo: int, hi: int) -> str:
    return f"part-{lo:012d}-{hi:012d}.npz"


class ChunkStore:
    """The directory *path* of the run *run* (its identity the digest of *run* and
    *content*, the evaluator's or policy's identity): created with its manifest
    (*options* recorded beside the run) when new, checked against *run* when it exists
    (RolloutStoreError naming the fields that differ). Each kind of run is a subclass
    naming its manifest's ``FORMAT``, the function that writes it (``WHAT``) and
    ``check_part`` (what a part's arrays must satisfy)."""

    FORMAT: str = ""
    WHAT: str = ""

    @classmethod
    def read_run(cls, path: Any) -> dict:
        """The ``run`` of the manifest in directory *path*, or RolloutStoreError."""
        return read_manifest(path, cls.FORMAT, cls.WHAT)["run"]

    @classmethod
    def stored_chunk_size(cls, path: Any) -> int | None:
        """The chunk size recorded in directory *path* (a rerun that gives none keeps it),
        or None when the directory holds no manifest (or records no valid size)."""
        if not os.path.exists(os.path.join(os.fspath(path), MANIFEST)):
            return None
        size = cls.read_run(path).get("chunk_size")
        return size if isinstance(size, int) and not isinstance(size, bool) and size >= 1 else None

    def __init__(self, path: Any, run: dict, content: str, options: dict | None = None,
                 resume: str = "check") -> None:
        if resume not in RESUME_MODES:
            raise InvalidArgumentError(f"resume must be one of {RESUME_MODES!r}, got {resume!r}")
        self.path = os.fspath(path)
        self.resume = resume
        self.identity = run_digest({"format": self.FORMAT, "run": run, "content": content})
        fmt = self.FORMAT
        if os.path.exists(os.path.join(self.path, MANIFEST)):
            data = read_manifest(self.path, fmt, self.WHAT)
            old = data["run"]
            if old != run:
                diff = {k: (old.get(k), run.get(k)) for k in sorted(set(old) | set(run)) if old.get(k) != run.get(k)}
                raise RolloutStoreError(f"{self.path!r} holds another rollout (field: (stored, asked)): {diff!r}")
            if data["identity"] != self.identity:
                raise RolloutStoreError(
                    f"{self.path!r} holds another rollout: the same arguments but another {self.CONTENT} "
                    f"(run identity {data['identity'][:16]}..., asked {self.identity[:16]}...)"
                )
            return
        manifest: dict = {"format": fmt, "identity": self.identity, "run": run}
        if options is not None:
            manifest["options"] = options
        try:
            os.makedirs(self.path, exist_ok=True)
            with atomic_write(os.path.join(self.path, MANIFEST), "w", encoding="utf-8") as f:
                f.write(json.dumps(manifest, indent=1))
        except OSError as exc:
            raise RolloutStoreError(f"cannot write the rollout directory {self.path!r}: {exc}") from exc

    #: What the content digest identifies, for messages.
    CONTENT = "evaluator"

    def check_part(self, lo: int, hi: int, arrays: list) -> str | None:
        """Why the arrays of part lo..hi-1 cannot be the run's, or None."""
        return None

    def parts(self, grid: Iterable[tuple[int, int]], names: tuple[str, ...]) -> Iterator[tuple[int, int, list]]:
        """``(lo, hi, [arrays named names])`` of every part on *grid* that exists, carries
        the run's identity and passes :meth:`check_part`; a part that does not raises
        RolloutStoreError naming it (with ``resume="recompute"`` it is left out: played
        again)."""
        for lo, hi in grid:
            file = os.path.join(self.path, _part_name(lo, hi))
            if not os.path.exists(file):
                continue
            why = None
            try:
                with np.load(file, allow_pickle=False) as z:
                    ident = str(z["identity"][()]) if "identity" in z.files else None
                    span = z["range"].tolist() if "range" in z.files else None
                    arrays = [z[name] for name in names]
            except Exception:  # truncated or damaged (not a result at all): play the chunk again
                continue
            else:
                if ident != self.identity:
                    why = "belongs to another run (its identity differs)" if ident else "carries no run identity"
                elif span != [lo, hi]:
                    why = f"holds items {span!r}, not [{lo}, {hi}] as its name says"
                else:
                    why = self.check_part(lo, hi, arrays)
            if why is None:
                yield lo, hi, arrays
            elif self.resume != "recompute":
                raise RolloutStoreError(
                    f"rollout part {file!r} {why}: delete it, or pass resume='recompute' to play its chunk again"
                )

    def save(self, lo: int, hi: int, **arrays: Any) -> None:
        """Keep the part of items lo..hi-1, its arrays by name and the run's identity
        (RolloutStoreError when it cannot be written)."""
        buf = io.BytesIO()
        np.savez(buf, identity=np.array(self.identity), range=np.array([lo, hi], dtype=np.int64), **arrays)
        try:
            with atomic_write(os.path.join(self.path, _part_name(lo, hi)), "wb") as f:
                f.write(buf.getvalue())
        except OSError as exc:
            raise RolloutStoreError(f"cannot write a part to the rollout directory {self.path!r}: {exc}") from exc


def bad_values(name: str, a: np.ndarray, lo: float, hi: float) -> str | None:
    """Why array *a* (named *name*) is not finite within [lo, hi], or None."""
    if not np.issubdtype(a.dtype, np.number):
        return f"has {name} of dtype {a.dtype}"
    if a.size and not np.isfinite(a).all():
        return f"holds non-finite {name}"
    if a.size and (a.min() < lo or a.max() > hi):
        return f"holds {name} outside [{lo:g}, {hi:g}] (from {a.min()!r} to {a.max()!r})"
    return None
