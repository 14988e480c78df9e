"""fastgen is typed for its users (PEP 561): ``mypy --strict`` passes on the example
scripts of tests/typing/, which call the public API as users do and pin the types they
get with ``assert_type`` (a missing annotation shows up as Any and fails). The scripts
also run, so what they claim is true at run time."""

from __future__ import annotations

import ast
import os
import re
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


# ------------------------------------------------------------------ the compiled modules' stubs

PACKAGE = Path(__file__).resolve().parents[1] / "fastgen"
# Python-visible names of a .pyx at its top level: functions, classes, constants.
_PYX_NAME = re.compile(r"^(?:def|cdef class|class) (\w+)|^([A-Za-z]\w*) *=", re.M)
_PYX_DEF = re.compile(r"^def (\w+)\((.*?)\):", re.M | re.S)


def _pyx_source(pyx: Path) -> str:
    """The text of a .pyx with each `include "file"` line replaced by that file's text (the
    core's jobs are .pxi files its _core.pyx includes)."""
    return re.sub(r'^include "([^"]+)"[ \t]*(?:#.*)?$', lambda m: _pyx_source(pyx.parent / m.group(1)), pyx.read_text(), flags=re.M)


def _pyx_parameters(text: str) -> list[str]:
    """Parameter names of a Cython signature: the last word of each, types, defaults and
    ``not None`` dropped; a bare ``*`` (keyword-only parameters follow) is no parameter."""
    text = re.sub(r"\[[^\]]*\]", "", text)  # memoryview dimensions hold commas
    parts = [re.sub(r"\s+not\s+None\s*$", "", part.split("=")[0]) for part in text.split(",")]
    return [re.findall(r"\w+", part)[-1] for part in parts if part.strip() and part.strip() != "*"]


@pytest.mark.parametrize(
    "pyx", sorted(PACKAGE.rglob("*.pyx")), ids=lambda p: str(p.relative_to(PACKAGE))
)
def test_compiled_module_stub_names_its_python_api(pyx):
    """Each compiled module has a .pyi stub (mypy reads no .so) naming every top-level
    function, class and constant of its .pyx, and each function with the same parameters."""
    stub = pyx.with_suffix(".pyi")
    assert stub.is_file(), f"{pyx.name} has no stub {stub.name}"
    source = _pyx_source(pyx)
    names = {a or b for a, b in _PYX_NAME.findall(source)}
    tree = ast.parse(stub.read_text())
    stubbed = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    stubbed |= {t.id for node in tree.body if isinstance(node, ast.AnnAssign) for t in [node.target]
                if isinstance(t, ast.Name) and not t.id.startswith("_")}
    assert names == stubbed, (sorted(names - stubbed), sorted(stubbed - names))
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    for name, signature in _PYX_DEF.findall(source):
        given = [a.arg for a in functions[name].args.args + functions[name].args.kwonlyargs]
        assert given == _pyx_parameters(signature), name
