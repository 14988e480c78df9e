"""The source distribution carries what it needs: it builds, and its tests pass.

Builds the sdist with ``python -m build --sdist --no-isolation`` (this environment's
setuptools, Cython and numpy: the 'test' extra installs them), unpacks it, builds the
compiled modules in the unpacked tree (``FASTGEN_DEBUG=1``: -O0 compiles fastest) and
runs a few test modules from there.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SHIPPED = [
    "LICENSE",
    "NOTICE",
    "README.md",
    "MANIFEST.in",
    "pyproject.toml",
    "setup.py",
    "fastgen/core/_core.pyx",
    "fastgen/core/_core.pxd",
    "fastgen/core/_chooser.pxd",
    "fastgen/sim/_play.pyx",
    "fastgen/players/_pubeval.pyx",
    "fastgen/players/_pubeval.pxd",
    "fastgen/search/_perft.pyx",
    "fastgen/nets/_mlp.h",
    "fastgen/nets/_mlp.pxd",
    "fastgen/core/_bits.pxd",
    "fastgen/sim/_loop.pxd",
    "fastgen/core/_platform.h",
    # the job files _core.pyx and sim/_play.pyx include: without them the sdist does not build
    *sorted(p.relative_to(ROOT).as_posix() for d in ("core", "sim") for p in (ROOT / "fastgen" / d).glob("_*.pxi")),
    "fastgen/py.typed",
    "fastgen/core/_core.pyi",
    "fastgen/sim/_play.pyi",
    "fastgen/players/_pubeval.pyi",
    "fastgen/core/_features.pyi",
    "fastgen/envs/_kernel.pyi",
    "fastgen/data/contact.csv",
    "fastgen/data/race.csv",
    "fastgen/data/SOURCE.md",
    "fastgen/data/baseline.npz",
    "tests/conftest.py",
    "tests/strategies.py",
    "tests/_positions.py",
    "tests/_td40.py",
    "tests/_examples.py",
    "tests/data/td40.npz",
    "tests/test_rules.py",
    "tests/typing/generate_plays.py",
    "bench/conftest.py",
    "bench/mlp_parts.c",
    "docs/RULES.md",
    "docs/CONTRIBUTING.md",
    "docs/conf.py",
    "docs/index.rst",
    "docs/_ext/fastgen_docs.py",
    "docs/_ext/fastgen_plots.py",
    "docs/_data/bench.json",
    "docs/_static/fastgen.css",
    "docs/guides/generation.rst",
    "examples/td_bot.py",
    "docs/guides/duels.rst",
]


#: C sources written by hand (every other .c file is Cython's output and must not ship).
HAND_WRITTEN_C = {"bench/mlp_parts.c"}


def _run(args, cwd, **env):
    proc = subprocess.run(
        args, cwd=cwd, capture_output=True, text=True, env={**os.environ, **env}, timeout=600
    )
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-4000:]
    return log


def test_sdist_contents_build_and_tests(tmp_path):
    pytest.importorskip("build", reason="the 'build' package is not installed (the 'test' extra has it)")
    pytest.importorskip("Cython", reason="Cython is not installed (the 'test' extra has it)")
    setuptools = pytest.importorskip("setuptools", reason="setuptools is not installed")
    if int(setuptools.__version__.split(".")[0]) < 77:
        pytest.skip(f"setuptools {setuptools.__version__} cannot read SPDX license strings (77 or later needed)")
    if not (ROOT / "pyproject.toml").is_file():
        pytest.skip("needs a source tree (pyproject.toml next to tests/)")

    log = _run([sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", str(tmp_path)], ROOT)
    assert "as a TOML table is deprecated" not in log  # project.license is an SPDX string
    (sdist,) = tmp_path.glob("*.tar.gz")
    # named after the distribution, fastgen-backgammon, normalised (PEP 625): not PyPI's other fastgen
    assert sdist.name.startswith("fastgen_backgammon-"), sdist.name
    with tarfile.open(sdist) as tar:
        names = tar.getnames()
        tar.extractall(tmp_path / "src")
    (tree,) = (tmp_path / "src").iterdir()
    files = {n.split("/", 1)[1] for n in names if "/" in n}
    assert not [name for name in SHIPPED if name not in files]
    # built or generated (bench/mlp_parts.c is a hand-written C program, not Cython's output)
    assert not [n for n in files if n.endswith((".so", ".pyd", ".c")) and n not in HAND_WRITTEN_C]

    # build_py copies the package data as a wheel would: setuptools warns there when
    # package data lies in a folder that `packages` does not list (it did for fastgen/data).
    log = _run([sys.executable, "setup.py", "build_py", "build_ext", "--inplace"], tree, FASTGEN_DEBUG="1")
    assert "fastgen.data" not in log, [line for line in log.splitlines() if "fastgen.data" in line]
    (lib,) = (tree / "build").glob("lib*")  # build/lib or build/lib.<platform>
    assert (lib / "fastgen" / "data" / "contact.csv").is_file() and (lib / "fastgen" / "py.typed").is_file()
    assert (lib / "fastgen" / "data" / "SOURCE.md").is_file()  # the vendored files' provenance travels with them
    # the compiled modules' type stubs go into wheels (package data)
    stubs = ["core/_core.pyi", "core/_features.pyi", "envs/_kernel.pyi"]
    assert not [name for name in stubs if not (lib / "fastgen" / name).is_file()]

    where = _run([sys.executable, "-c", "import fastgen; print(fastgen.__file__)"], tree)
    assert Path(where.strip()).parent == tree / "fastgen", where
    log = _run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
         "tests/test_rules.py", "tests/test_vectors.py", "tests/test_packaging.py"],
        tree,
    )
    assert " passed" in log and " failed" not in log
