"""The source distribution builds, carries its tests, and its tests pass.

Builds the sdist with ``python -m build`` (an isolated build environment: needs the
package index), builds a wheel from that sdist (as pip does for users without a wheel),
unpacks the sdist, puts the wheel's compiled core into it and runs a few test modules
from the unpacked tree. About a minute, most of it compiling.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SHIPPED = [
    "LICENSE",
    "NOTICE",
    "README.md",
    "pyproject.toml",
    "setup.py",
    "fastgen/_core.pyx",
    "fastgen/_core.pxd",
    "fastgen/_platform.h",
    "fastgen/py.typed",
    "fastgen/data/contact.csv",
    "tests/conftest.py",
    "tests/strategies.py",
    "tests/_positions.py",
    "tests/data/contact.csv",
    "tests/data/race.csv",
    "tests/test_rules.py",
    "bench/conftest.py",
    "docs/RULES.md",
    "docs/CONTRIBUTING.md",
]


def test_sdist_builds_a_wheel_and_its_tests_run(tmp_path):
    pytest.importorskip("build", reason="the 'build' package is not installed (pip install build)")
    if not (ROOT / "pyproject.toml").is_file():
        pytest.skip("needs a source tree (pyproject.toml not found next to tests/)")
    dist = tmp_path / "dist"
    # FASTGEN_DEBUG=1: -O0 compiles in a few seconds; the tests below do not time anything.
    env = {**os.environ, "FASTGEN_DEBUG": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-4000:]
    # setuptools warns when package data lies in a folder missing from `packages`.
    assert "fastgen.data" not in log, [line for line in log.splitlines() if "fastgen.data" in line]
    assert "as a TOML table is deprecated" not in log  # project.license is an SPDX string

    (sdist,) = dist.glob("fastgen-*.tar.gz")
    (wheel,) = dist.glob("fastgen-*.whl")
    with tarfile.open(sdist) as tar:
        names = tar.getnames()
        tar.extractall(tmp_path / "src")
    (tree,) = (tmp_path / "src").iterdir()
    files = {n.split("/", 1)[1] for n in names if "/" in n}
    missing = [name for name in SHIPPED if name not in files]
    assert not missing
    assert not [n for n in files if n.endswith((".so", ".pyd", ".c"))]  # built or generated

    with zipfile.ZipFile(wheel) as whl:
        wheel_files = whl.namelist()
        assert "fastgen/py.typed" in wheel_files and "fastgen/data/contact.csv" in wheel_files
        assert any(n.startswith("fastgen-") and n.endswith("licenses/NOTICE") for n in wheel_files)
        compiled = [n for n in wheel_files if n.endswith((".so", ".pyd"))]
        assert {"fastgen/_core", "fastgen/_features"} <= {n.split(".")[0] for n in compiled}
        for name in compiled:
            whl.extract(name, tree)

    where = subprocess.run(
        [sys.executable, "-c", "import fastgen; print(fastgen.__file__)"], cwd=tree, capture_output=True, text=True
    )
    assert Path(where.stdout.strip()).parent == tree / "fastgen", where.stdout + where.stderr
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
         "tests/test_rules.py", "tests/test_vectors.py", "tests/test_packaging.py"],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]
    assert " passed" in run.stdout and " failed" not in run.stdout
