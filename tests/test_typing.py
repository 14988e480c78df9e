"""fastgen is typed for its users (PEP 561): ``mypy --strict`` passes on the example
scripts of tests/typing/, which call the public API as users do and pin the types they
get with ``assert_type`` (a missing annotation shows up as Any and fails). The scripts
also run, so what they claim is true at run time."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import fastgen

EXAMPLES = Path(__file__).resolve().parent / "typing"
SCRIPTS = sorted(EXAMPLES.glob("*.py"))
# The directory holding the fastgen being tested (an in-place build or site-packages).
PACKAGE_PARENT = str(Path(fastgen.__file__).resolve().parents[1])


def test_examples_exist():
    assert len(SCRIPTS) >= 2, SCRIPTS


def test_mypy_strict_passes_on_user_scripts(tmp_path):
    pytest.importorskip("mypy", reason="mypy is not installed (pip install mypy, or the 'test' extra)")
    # --follow-imports=silent: fastgen's own modules are read for their types but not
    # reported on, as for any installed package a user imports.
    env = dict(os.environ)
    if Path(PACKAGE_PARENT).name not in ("site-packages", "dist-packages"):
        env["MYPYPATH"] = PACKAGE_PARENT  # an in-place build; an installed copy is found as is
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--no-error-summary",
         "--cache-dir", str(tmp_path / "cache"), *map(str, SCRIPTS)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_example_scripts_run(script):
    env = {**os.environ, "PYTHONPATH": PACKAGE_PARENT}
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip()
