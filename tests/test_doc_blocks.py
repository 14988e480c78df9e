"""Every code block of the docs and the README is run or checked by CI.

- Python: a docs page's Python examples are doctests (``>>>``) or ``.. testcode::``
  blocks, both run by ``sphinx-build -b doctest docs DIR`` (``tests/test_docs.py`` runs it);
  a plain ``.. code-block:: python`` would be shown without being run, so none may be
  left. The README's are run by ``tests/test_readme.py``.
- Shell: every ``fastgen ...`` command of a ``bash`` block is parsed by the command's own
  argument parser (a misspelt sub-command or option fails here), and every
  ``pip install ".[extra]"`` names extras that ``pyproject.toml`` defines.
"""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import pytest

from fastgen.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.rst")) + sorted(DOCS.rglob("*.md")) + [ROOT / "README.md"]


def _blocks(path: Path) -> list[tuple[str, str, int]]:
    """(language, body, line) of each code block of an .rst or Markdown file."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        return [
            (m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1)
            for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.S | re.M)
        ]
    lines = text.splitlines()
    found = []
    for i, line in enumerate(lines):
        m = re.match(r"\s*\.\. (?:code-block|code|sourcecode)::\s*(\w*)", line)
        if not m and line.rstrip().endswith("::") and not line.lstrip().startswith(".."):
            m = re.match(r"()", "")  # a literal block: checked as shell when it runs fastgen or pip
        if not m:
            continue
        body, indent = [], None
        for nxt in lines[i + 1 :]:
            if not nxt.strip():
                body.append("")
                continue
            cur = len(nxt) - len(nxt.lstrip())
            if indent is None:
                if nxt.strip().startswith(":"):
                    continue  # an option of the directive
                indent = cur
            if cur < indent:
                break
            body.append(nxt[indent:])
        found.append((m.group(1), "\n".join(body).strip(), i + 1))
    return found


def _commands(body: str) -> list[str]:
    """The shell commands of a block, one per line (a line ending in a backslash goes on
    on the next), comments and prompts removed; the parts of ``a && b`` separately."""
    out = []
    for line in re.sub(r"\\\n\s*", " ", body).splitlines():
        line = line.split("  #")[0].strip().removeprefix("$ ")
        if line.startswith("#") or not line:
            continue
        out.extend(part.strip() for part in line.split("&&"))
    return out


def _extras() -> set[str]:
    if sys.version_info >= (3, 11):
        import tomllib  # lazy: the standard library's TOML reader is 3.11+
    else:  # pragma: no cover
        pytest.skip("reading pyproject.toml needs Python 3.11's tomllib")
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return set(data["project"]["optional-dependencies"])


BLOCKS = [(p, lang, body, line) for p in PAGES for lang, body, line in _blocks(p)]


def test_the_block_reader_finds_blocks():
    langs = {lang for _, lang, _, _ in BLOCKS}
    assert "bash" in langs and len(BLOCKS) > 10, langs


@pytest.mark.parametrize("path", [p for p in PAGES if p.suffix == ".rst"], ids=lambda p: str(p.relative_to(ROOT)))
def test_no_python_block_is_shown_without_being_run(path):
    shown = [line for lang, body, line in _blocks(path) if lang in ("python", "py", "pycon") and ">>>" not in body]
    assert not shown, f"{path.relative_to(ROOT)}: python code-blocks at lines {shown}: use .. testcode:: or >>>"


SHELL = [
    (p, body, line)
    for p, lang, body, line in BLOCKS
    if lang in ("bash", "sh", "console", "shell")
    or (lang == "" and re.match(r"(\$ )?(fastgen|pip) ", body))
]


#: A synopsis's placeholders and a value of each that the parser accepts.
PLACEHOLDERS = {"ID": "4HPwATDgc/ABMA", "N": "2", "ADDRESS": "tcp://127.0.0.1:8786", "FILE": "x.bd", "DIR": "run1"}


def _variants(words: list[str]) -> list[list[str]]:
    """A synopsis's variants: the words without its ``[optional]`` groups, then with each
    alternative of each group (``[--workers N | --scheduler ADDRESS]`` gives two)."""
    text = " ".join(words)
    groups = re.findall(r"\[([^\]]*)\]", text)
    base = re.sub(r"\s*\[[^\]]*\]", "", text).split()
    out = [base]
    for group in groups:
        out.extend(base + alt.split() for alt in group.split("|"))
    return out


@pytest.mark.parametrize(
    "path, body, line", SHELL, ids=[f"{p.relative_to(ROOT)}:{line}" for p, _, line in SHELL]
)
def test_shell_commands_are_real(path, body, line):
    extras = _extras()
    for command in _commands(body):
        words = shlex.split(command, comments=True)
        if words[0] == "fastgen":
            for variant in ([PLACEHOLDERS.get(w, w) for w in v] for v in _variants(words[1:])):
                try:
                    build_parser().parse_args(variant)
                except SystemExit as stop:
                    pytest.fail(f"{path.relative_to(ROOT)}:{line}: `fastgen {' '.join(variant)}` does not parse ({stop.code})")
        for spec in re.findall(r"\.\[([\w,-]+)\]", command):
            unknown = set(spec.split(",")) - extras
            assert not unknown, f"{path.relative_to(ROOT)}:{line}: `{command}` names unknown extras {unknown}"
