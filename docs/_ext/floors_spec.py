"""The package's floors as docs/architecture.rst declares them, read with no dependency.

docs/architecture.rst's ``fastgen-floors`` block names one floor a line, top floor first:
the module prefixes on it, a ``|``, and what the floor is for. ``fastgen_floors`` (the
Sphinx directive) draws them; ``tests/test_layout.py`` holds the code to them.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def parse_floors(lines) -> list[tuple[list[str], str]]:
    """``(prefixes, description)`` per floor, lowest floor first, from the directive's lines."""
    floors = []
    for line in lines:
        if not line.strip():
            continue
        names, _, what = line.partition("|")
        floors.append((names.split(), what.strip()))
    return floors[::-1]


def floors_of(rst: Path) -> list[tuple[list[str], str]]:
    """The floors declared by the ``fastgen-floors`` block of an .rst file, lowest first."""
    lines = rst.read_text(encoding="utf-8").splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.strip() == ".. fastgen-floors::")
    block = []
    for ln in lines[start + 1 :]:
        if ln.strip() and not ln.startswith("   "):
            break
        block.append(ln)
    return parse_floors(block)


def files_under(prefix: str) -> list[Path]:
    """The Python and Cython files a module prefix names (a module, or a package's tree).

    A compiled module is its .pyx, its .pxd and the .pxi files the .pyx includes."""
    base = ROOT / prefix.replace(".", "/")
    if base.is_dir():
        return sorted(p for p in base.rglob("*") if p.suffix in {".py", ".pyx", ".pxi", ".pxd"})
    files = [p for p in (base.with_suffix(".py"), base.with_suffix(".pyx"), base.with_suffix(".pxd")) if p.is_file()]
    pyx = base.with_suffix(".pyx")
    if pyx.is_file():
        for line in pyx.read_text(encoding="utf-8").splitlines():
            included = re.match(r"""include\s+["']([^"']+\.pxi)["']""", line)
            if included and (pyx.parent / included.group(1)).is_file():
                files.append(pyx.parent / included.group(1))
    return files
