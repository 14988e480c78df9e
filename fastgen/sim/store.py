"""A directory of finished chunks with a manifest: what ``out=DIR`` keeps of a long run.

:func:`fastgen.rollout` (:mod:`fastgen.sim.rollout.chunks`) and :func:`fastgen.rollout_plays`
(:mod:`fastgen.sim.decide.chunks`) both keep their finished chunks this way:
``DIR/manifest.json`` records the run (its format name, the ``run`` fields a rerun must
match, and options that may differ), and each finished chunk of items ``lo..hi-1`` is one
``DIR/part-<lo>-<hi>.npz``. Every file is written to a temporary name, synced and renamed,
so a part is complete or absent; a part that cannot be read is left out (played again).
"""

from __future__ import annotations

import json
import os
import uuid
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from fastgen.errors import RolloutStoreError

__all__ = ["MANIFEST", "ChunkStore", "read_manifest"]

MANIFEST = "manifest.json"


def read_manifest(path: Any, fmt: str, what: str) -> dict:
    """The manifest in directory *path* (a dict with ``format`` *fmt* and a ``run`` dict),
    or RolloutStoreError naming the file and *what* it should have been."""
    file = os.path.join(os.fspath(path), MANIFEST)
    try:
        with open(file, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as exc:
        raise RolloutStoreError(f"cannot read the rollout manifest {file!r}: {exc}") from exc
    if not isinstance(data, dict) or data.get("format") != fmt or not isinstance(data.get("run"), dict):
        raise RolloutStoreError(f"{file!r} is not a manifest of {what} ({fmt})")
    return data


def _part_name(lo: int, hi: int) -> str:
    return f"part-{lo:012d}-{hi:012d}.npz"


class ChunkStore:
    """The directory *path* of the run *run*: created with its manifest (*options* recorded
    beside the run) when new, checked against *run* when it exists (RolloutStoreError
    naming the fields that differ). Each kind of run is a subclass naming its manifest's
    ``FORMAT`` and the function that writes it (``WHAT``)."""

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

    def __init__(self, path: Any, run: dict, options: dict | None = None) -> None:
        self.path = os.fspath(path)
        fmt = self.FORMAT
        if os.path.exists(os.path.join(self.path, MANIFEST)):
            old = self.read_run(self.path)
            if old != run:
                diff = {k: (old.get(k), run.get(k)) for k in sorted(set(old) | set(run)) if old.get(k) != run.get(k)}
                raise RolloutStoreError(f"{self.path!r} holds another rollout (field: (stored, asked)): {diff!r}")
            return
        manifest: dict = {"format": fmt, "run": run}
        if options is not None:
            manifest["options"] = options
        try:
            os.makedirs(self.path, exist_ok=True)
            self._write(MANIFEST, lambda f: f.write(json.dumps(manifest, indent=1).encode()))
        except OSError as exc:
            raise RolloutStoreError(f"cannot write the rollout directory {self.path!r}: {exc}") from exc

    def _write(self, name: str, fill: Callable[[Any], Any]) -> None:
        tmp = os.path.join(self.path, f".{name}.{uuid.uuid4().hex}.tmp")
        with open(tmp, "wb") as f:
            fill(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, os.path.join(self.path, name))

    def parts(self, grid: Iterable[tuple[int, int]], names: tuple[str, ...]) -> Iterator[tuple[int, int, list]]:
        """``(lo, hi, [arrays named names])`` of every part on *grid* that exists and reads
        whole; the caller checks the shapes."""
        for lo, hi in grid:
            file = os.path.join(self.path, _part_name(lo, hi))
            if not os.path.exists(file):
                continue
            try:
                with np.load(file) as z:
                    arrays = [z[name] for name in names]
            except Exception:  # truncated or damaged: recompute the chunk
                continue
            yield lo, hi, arrays

    def save(self, lo: int, hi: int, **arrays: Any) -> None:
        """Keep the part of items lo..hi-1, its arrays by name (RolloutStoreError when it
        cannot be written)."""
        try:
            self._write(_part_name(lo, hi), lambda f: np.savez(f, **arrays))
        except OSError as exc:
            raise RolloutStoreError(f"cannot write a part to the rollout directory {self.path!r}: {exc}") from exc
