"""Run Python in a child process on the very fastgen the tests imported.

A child started in the repository root would import the source tree there (without its
compiled modules, after ``pip install .``) instead of the copy under test, so children
run in another directory with that copy first on ``PYTHONPATH``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import fastgen

PACKAGE_PARENT = str(Path(fastgen.__file__).resolve().parents[1])


def child_env() -> dict[str, str]:
    """The environment for a child: the tested fastgen first on ``PYTHONPATH``."""
    rest = os.environ.get("PYTHONPATH")
    return dict(os.environ, PYTHONPATH=PACKAGE_PARENT + (os.pathsep + rest if rest else ""))


def run_python(*args: str, cwd: str | os.PathLike[str] | None = None, **kwargs) -> subprocess.CompletedProcess:
    """``python *args`` in ``cwd`` (default: the temporary directory), output captured as text."""
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd if cwd is not None else tempfile.gettempdir(),
        env=child_env(),
        capture_output=True,
        text=True,
        **kwargs,
    )
