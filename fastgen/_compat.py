"""Old names kept for one release: each still works, with a DeprecationWarning naming the new one.

Modules: ``import fastgen.evaluators`` (and ``from fastgen import evaluators``) still work
after the module moved to :mod:`fastgen.players.evaluators`: a finder on ``sys.meta_path``
answers the old name with a small module that forwards every attribute to the new one and
warns once, when it is imported. Names: :func:`deprecated` is the one warning that a
renamed function or a name moved off the top level gives (``fastgen.read_sgf`` is now
``fastgen.formats.read_sgf``); :func:`deprecated_use` the warning of a deprecated way of
using something (a weights file in an old layout). Nothing here is imported by user code
directly.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings
from typing import Any

#: Old module name -> the module that holds its contents now.
MOVED: dict[str, str] = {
    "fastgen.evaluators": "fastgen.players.evaluators",
    "fastgen.policies": "fastgen.players.policies",
    "fastgen.specs": "fastgen.players.specs",
    "fastgen.engines": "fastgen.players.engines",
    "fastgen.pubeval": "fastgen.players.pubeval",
    "fastgen.board": "fastgen.games.board",
    "fastgen.fibs": "fastgen.formats.fibs",
    "fastgen.svg": "fastgen.formats.svg",
}

#: The release after which the old names are gone.
REMOVED_IN = "0.3"


class _Forward(types.ModuleType):
    """An old module name: every attribute is the new module's."""

    def __init__(self, name: str, target: str) -> None:
        super().__init__(name, f"Deprecated: use {target}.")
        self.__dict__["_target"] = target

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self.__dict__["_target"]), attr)

    def __dir__(self) -> list[str]:
        return dir(importlib.import_module(self.__dict__["_target"]))


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the old names of :data:`MOVED` (and nothing else)."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return _Forward(spec.name, MOVED[spec.name])

    def exec_module(self, module: types.ModuleType) -> None:
        warn_moved(module.__name__, stacklevel=8)


def deprecated(old: str, new: str, stacklevel: int = 3) -> None:
    """Warn that the name *old* is deprecated for *new* (both in full: ``fastgen.read_sgf``)."""
    warnings.warn(f"{old} is deprecated and will be removed in fastgen {REMOVED_IN}: use {new}",
                  DeprecationWarning, stacklevel=stacklevel)


def deprecated_use(message: str) -> None:
    """Warn that a use is deprecated (*message*, a DeprecationWarning) at the first caller
    outside fastgen: a use reached through several of fastgen's functions (a spec loaded by
    a duel) is reported at the user's line, which Python's default filters show for a
    script (they show a DeprecationWarning only when it points into ``__main__``)."""
    frame = sys._getframe(1)  # the caller: warnings.warn's stacklevel 2
    level = 2
    while frame.f_back is not None and str(frame.f_globals.get("__name__", "")).partition(".")[0] == "fastgen":
        frame = frame.f_back
        level += 1
    warnings.warn(message, DeprecationWarning, stacklevel=level)


def warn_moved(old: str, stacklevel: int = 3) -> None:
    """The DeprecationWarning of the old name *old* (a module of :data:`MOVED`)."""
    deprecated(old, MOVED[old], stacklevel=stacklevel + 1)


def install() -> None:
    """Put the finder on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())
