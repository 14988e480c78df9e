"""The package as users meet it: the import error of an unbuilt source tree, the license
files, py.typed and the metadata that goes into wheels and sdists."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import fastgen

import pytest

PACKAGE = Path(fastgen.__file__).parent  # the imported copy: installed or built in place
ROOT = Path(__file__).resolve().parents[1]  # the repository (or unpacked sdist)


def test_unbuilt_source_tree_gives_a_clear_import_error(tmp_path):
    """Importing the sources without the compiled core (e.g. from the repository root
    after ``pip install .``) says what to do, not 'circular import'."""
    shutil.copytree(PACKAGE, tmp_path / "fastgen", ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    assert not list((tmp_path / "fastgen").glob("_core*.so"))
    proc = subprocess.run(
        [sys.executable, "-c", "import fastgen"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: fastgen's compiled modules (fastgen.core._core, fastgen.core._features) are not built"), proc.stderr
    assert "python setup.py build_ext --inplace" in last and "another directory" in last
    assert "circular" not in proc.stderr


def test_py_typed_marker_ships_with_the_package():
    """PEP 561: without py.typed, type checkers treat every fastgen name as Any."""
    assert (PACKAGE / "py.typed").is_file()


def test_license_files_and_spdx_expression():
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT"  # SPDX expression, not the deprecated table
    for name in project["license-files"]:
        assert (ROOT / name).is_file(), name
    assert "MIT License" in (ROOT / "LICENSE").read_text()
    notice = (ROOT / "NOTICE").read_text()
    assert "wildbg" in notice and "Carsten Wenderdel" in notice


def test_vendored_data_is_credited_and_kept_once():
    """The wildbg vector files are shipped in fastgen/data with their provenance beside
    them, and the tests keep no second copy."""
    source = (PACKAGE / "data" / "SOURCE.md").read_text()
    assert "wildbg" in source and "1ad2c0bc" in source
    for name in ("contact.csv", "race.csv"):
        assert name in source and len((PACKAGE / "data" / name).read_text().split()) == 1000, name
        assert not (ROOT / "tests" / "data" / name).exists(), name


def test_repository_cites_no_path_outside_itself():
    """Docs, code and tests point at docs/RULES.md, never at one machine's paths."""
    outside = ("/" + "work/", "shared" + "/RULES", "shared" + "/vectors", "CONTRACT" + ".md")
    bare_rules = re.compile(r"(?<![/\w])RULES\.md")  # outside docs/, the rules are docs/RULES.md
    offenders = []
    for folder in ("fastgen", "tests", "docs", "bench", "ci"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in {".py", ".pyx", ".pxd", ".pxi", ".pyi", ".h", ".md", ".sh", ".txt", ".toml"}:
                text = path.read_text(encoding="utf-8", errors="replace")
                offenders += [f"{path.relative_to(ROOT)}: {s}" for s in outside if s in text]
                if folder != "docs" and bare_rules.search(text):
                    offenders.append(f"{path.relative_to(ROOT)}: the rules cited without docs/")
    for name in ("README.md", "pyproject.toml", "setup.py", "MANIFEST.in"):
        text = (ROOT / name).read_text(encoding="utf-8")
        offenders += [f"{name}: {s}" for s in outside if s in text]
    assert not offenders
    rules = (ROOT / "docs/RULES.md").read_text(encoding="utf-8")
    for n in range(1, 21):
        assert f"**R{n}. " in rules, f"R{n} missing from docs/RULES.md"


def test_every_subpackage_is_listed_for_the_wheel():
    """pyproject.toml lists packages by name (fastgen/data has no __init__.py), so a new
    subpackage missing from the list would build and pass in the source tree yet be left
    out of every wheel: its Python modules would be missing after ``pip install .``."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "fastgen").rglob("__init__.py")}
    assert not found - listed, sorted(found - listed)
    assert "fastgen.data" in listed
