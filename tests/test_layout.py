"""Package layout: no import cycles, no re-export modules, no extras pulled in by ``import fastgen``.

Each check runs in a fresh interpreter (``python -c``), so modules that the test process
has already imported cannot hide a cycle.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import fastgen

PACKAGE = Path(fastgen.__file__).parent
ROOT = PACKAGE.parent  # where the tested package is installed (site-packages in CI)
#: The repository these tests belong to (not ROOT: CI tests an installed copy of the package).
REPO = Path(__file__).resolve().parent.parent
#: Its folders that hold source files, walked when it is not a git checkout (an unpacked sdist).
SOURCE_DIRS = ["fastgen", "tests", "bench", "examples", "ci", "docs"]

#: The optional extras of pyproject.toml, by the top-level module each installs:
#: ``import fastgen`` must not load them.
EXTRA_OF = {
    "gymnasium": "rl", "pettingzoo": "rl",
    "dask": "dask", "distributed": "dask", "cloudpickle": "dask",
    "jax": "pgx", "pgx": "pgx",
    "gnubg_nn": "peers", "gnubg": "peers",
    "matplotlib": "plot",
    "onnx": "onnx", "onnxruntime": "onnx",
}
EXTRAS = sorted(EXTRA_OF)


def _modules() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if parts[-1] == "__main__":
            continue  # running it is the CLI, importing it is not its job
        names.append(".".join(parts))
    return names


def _run(code: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)


#: Imports one module; a module that is not there is named on the last line of stderr.
_IMPORT_ALONE = """
import importlib, sys
try:
    importlib.import_module({name!r})
except ModuleNotFoundError as exc:
    print(exc, file=sys.stderr)
    print("missing module:", exc.name, file=sys.stderr)
    sys.exit(3)
"""


@pytest.mark.parametrize("name", _modules())
def test_every_module_imports_alone_in_a_fresh_interpreter(name):
    # One interpreter per module, each importing only that module first: a cycle shows
    # up as an ImportError / AttributeError for whichever module of the circle comes first.
    # A module that needs an optional extra skips when the import fails for that extra's
    # absence only, read from the error itself (not from a list of modules), so a missing
    # extra cannot hide any other failure.
    done = _run(_IMPORT_ALONE.format(name=name))
    if done.returncode == 3:
        missing = done.stderr.strip().splitlines()[-1].removeprefix("missing module: ")
        top = missing.split(".")[0]
        if top in EXTRA_OF and importlib.util.find_spec(top) is None:
            extra = EXTRA_OF[top]
            pytest.skip(f"{name} needs the {extra} extra ({top} is not installed): pip install '.[{extra}]'")
    assert done.returncode == 0, done.stderr.strip().splitlines()[-2:]


def _is_module(dotted: str) -> bool:
    base = ROOT / dotted.replace(".", "/")
    return base.is_dir() or any(base.parent.glob(base.name + ".*"))


def _top_level(tree):
    """Statements run on import: the module body, including if/try blocks, not functions."""
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.If, ast.Try)):
            stack.extend(node.body + node.orelse + getattr(node, "finalbody", []))
            for handler in getattr(node, "handlers", []):
                stack.extend(handler.body)


def _imports_of(path: Path, late: bool = True) -> set[str]:
    """fastgen modules imported by *path*, at the top level (and inside functions with *late*).

    ``from pkg import mod`` counts as importing ``pkg.mod`` when that is a module (the
    package itself is imported first anyway, as for every submodule)."""
    tree = ast.parse(path.read_text())
    found = set()
    nodes = ast.walk(tree) if late else _top_level(tree)
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("fastgen"):
            subs = [f"{node.module}.{a.name}" for a in node.names if _is_module(f"{node.module}.{a.name}")]
            found.update(subs)
            if len(subs) < len(node.names):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("fastgen."))
    return found


def test_no_import_cycles():
    # The import graph has no cycle, counting imports inside functions too: no in-function
    # import may hide one.
    graph = {}
    for name in _modules():
        path = ROOT / (name.replace(".", "/") + ".py")
        if not path.exists():
            path = ROOT / name.replace(".", "/") / "__init__.py"
        # Edges to one's own parent packages are not cycles: Python imports those first.
        graph[name] = {
            m for m in _imports_of(path) if m in set(_modules()) and m != name and not name.startswith(m + ".")
        }
    graph.pop("fastgen", None)  # the package's __init__ imports the public names of all
    for edges in graph.values():
        edges.discard("fastgen")
    # "import fastgen" inside a function of a submodule reaches everything: allowed only
    # for CLIs and benchmarks, which sit on top of the package.
    state = {}
    cycle = []

    def visit(node, stack):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                cycle.extend(stack[stack.index(nxt):] + [nxt])
                return True
            if nxt not in state and visit(nxt, stack):
                return True
        stack.pop()
        state[node] = "done"
        return False

    for node in sorted(graph):
        if node not in state and visit(node, []):
            break
    assert not cycle, " -> ".join(cycle)


#: The floors of the package, lowest first, as docs/architecture.rst declares them (its
#: ``fastgen-floors`` block): a module may import from its own floor's package and from any
#: floor below, never from a floor above.
sys.path.insert(0, str(REPO / "docs" / "_ext"))
from floors_spec import floors_of  # noqa: E402  (the page's own parser, no dependency)

LAYERS: list[list[str]] = [names for names, _ in floors_of(REPO / "docs" / "architecture.rst")]


def _floor(module: str) -> tuple[int, str]:
    """The floor of *module* and the layer entry it falls under (its longest prefix)."""
    best = None
    for i, floor in enumerate(LAYERS):
        for entry in floor:
            if module == entry or module.startswith(entry + "."):
                if best is None or len(entry) > len(best[1]):
                    best = (i, entry)
    assert best is not None, f"{module} is on no floor of LAYERS: add it there"
    return best


def test_every_module_is_on_a_floor():
    for name in _modules() + _compiled_modules():
        if name not in ("fastgen", "fastgen.sim", "fastgen.data"):
            _floor(name)


def test_no_import_runs_back_up_the_floors():
    # Counting imports inside functions too (an in-function import hides no upward arrow).
    # The pictures of a Play, a Board and a Game (their Jupyter hooks, _repr_svg_) are drawn
    # by fastgen.formats.svg, which installs its drawers into fastgen.core.notation: the
    # picture depends on the notation and the games, never the reverse.
    names = set(_modules())
    compiled = set(_compiled_modules())  # a Python module's import of an extension counts too
    upward = []
    for name in sorted(names - {"fastgen", "fastgen.sim"}):
        path = ROOT / (name.replace(".", "/") + ".py")
        if not path.exists():
            path = ROOT / name.replace(".", "/") / "__init__.py"
        mine, my_entry = _floor(name)
        for target in sorted(_imports_of(path) & (names | compiled)):
            if target in ("fastgen", "fastgen.sim") or name.startswith(target + "."):
                if target == "fastgen" and not name.startswith("fastgen.cli"):
                    upward.append(f"{name} -> fastgen (the package imports everything)")
                continue
            theirs, their_entry = _floor(target)
            if theirs > mine:
                upward.append(f"{name} (floor {mine}) -> {target} (floor {theirs})")
    assert not upward, upward


def test_the_floors_hold_on_a_known_upward_import(tmp_path):
    # The check above can fail: an import from the core into the simulation is caught.
    assert _floor("fastgen.core.generate")[0] < _floor("fastgen.sim.rollout.pool")[0]
    assert _floor("fastgen.sim.duel.play")[1] == "fastgen.sim.duel"
    assert _floor("fastgen.sim.duel.play")[0] > _floor("fastgen.sim.rollout.front")[0]


#: The compiled sources, read from the repository (an installed copy need not ship them):
#: each extension's .pyx, the .pxd declarations extensions cimport, the .pxi files a .pyx
#: includes (read as part of it) and the C headers.
SOURCE_PACKAGE = REPO / "fastgen"

_STRINGS = re.compile(r'"""[\s\S]*?"""|' + r"'''[\s\S]*?'''")
_FROM_CIMPORT = re.compile(r"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+cimport[ \t]+(\([^)]*\)|[^\n]*)", re.M)
_CIMPORT = re.compile(r"^[ \t]*cimport[ \t]+([^\n]*)", re.M)
_INCLUDE = re.compile(r"""^[ \t]*include[ \t]+["']([^"']+)["']""", re.M)
_EXTERN = re.compile(r"""^[ \t]*cdef[ \t]+extern[ \t]+from[ \t]+["']([^"']+)["']""", re.M)


def _dotted(path: Path) -> str:
    """The dotted name of a source file or folder of the repository's package."""
    return ".".join(path.relative_to(SOURCE_PACKAGE.parent).with_suffix("").parts)


def _compiled_modules() -> list[str]:
    """The modules the compiled sources declare: one per .pyx (an extension) and per .pxd."""
    return sorted({_dotted(p) for suffix in ("*.pyx", "*.pxd") for p in SOURCE_PACKAGE.rglob(suffix)})


def _is_source_module(dotted: str) -> bool:
    base = SOURCE_PACKAGE.parent / dotted.replace(".", "/")
    return base.is_dir() or any(base.with_suffix(s).is_file() for s in (".pxd", ".pyx", ".py"))


def _header_folder(including: Path, header: str) -> str | None:
    """The package whose folder holds *header* (an ``include`` or ``cdef extern from`` file):
    beside the including file first, as C and Cython look; else the one file of that name
    in the package (None: a system header such as ``stdint.h``, or a file outside the package)."""
    beside = (including.parent / header).resolve()
    if beside.is_file():
        return _dotted(beside.parent) if beside.is_relative_to(SOURCE_PACKAGE) else None
    found = sorted({p.parent for p in SOURCE_PACKAGE.rglob(Path(header).name) if p.as_posix().endswith("/" + header)})
    assert len(found) <= 1, f"{including}: {header} is in several folders: {found}"
    return _dotted(found[0]) if found else None


def _compiled_imports(name: str, path: Path, text: str | None = None, seen: set | None = None) -> list[tuple[str, str]]:
    """(fastgen target, where) for each compiled import of the module *name* in *path*
    (or in *text*, when given): ``cimport`` and ``from X cimport`` lines naming fastgen
    modules (``from pkg cimport mod`` names ``pkg.mod`` when that is a module), and the
    folders of the ``include`` files and ``cdef extern from`` headers it reads; an
    included .pxi file is read as part of *path*. Strings (docstrings, verbatim C) and
    comments are skipped."""
    seen = set() if seen is None else seen
    seen.add(path.resolve())
    text = path.read_text(encoding="utf-8") if text is None else text
    text = _STRINGS.sub(lambda m: "\n" * m.group(0).count("\n"), text)

    def where(match) -> str:
        return f"{path.name}:{text.count(chr(10), 0, match.start()) + 1}"

    package = name.rsplit(".", 1)[0]
    found = []
    for m in _FROM_CIMPORT.finditer(text):
        module, names = m.group(1), m.group(2)
        if module.startswith("."):  # relative: one dot is the module's own package
            dots = len(module) - len(module.lstrip("."))
            base = package.split(".")[: len(package.split(".")) - dots + 1]
            module = ".".join(base + ([module.lstrip(".")] if module.lstrip(".") else []))
        if not module.startswith("fastgen"):
            continue
        listed = re.sub(r"#[^\n]*", "", names).strip().strip("()").split(",")
        listed = [n.split()[0] for n in listed if n.strip()]
        subs = [f"{module}.{n}" for n in listed if _is_source_module(f"{module}.{n}")]
        found += [(s, where(m)) for s in subs] + ([(module, where(m))] if len(subs) < len(listed) else [])
    for m in _CIMPORT.finditer(text):
        for part in re.sub(r"#[^\n]*", "", m.group(1)).split(","):
            if part.strip().startswith("fastgen"):
                found.append((part.split()[0], where(m)))
    for pattern in (_INCLUDE, _EXTERN):
        for m in pattern.finditer(text):
            owner = _header_folder(path, m.group(1))
            if owner is not None:
                found.append((owner, where(m)))
            included = path.parent / m.group(1)
            if pattern is _INCLUDE and included.is_file() and included.resolve() not in seen:
                found += _compiled_imports(name, included, seen=seen)
    return found


def _target_floor(target: str) -> int:
    """The floor of an imported module or of the folder a header lives in; a package split
    over several floors (fastgen.sim) is on the lowest of them."""
    if any(target == e or target.startswith(e + ".") for floor in LAYERS for e in floor):
        return _floor(target)[0]
    under = [i for i, floor in enumerate(LAYERS) for e in floor if e.startswith(target + ".")]
    assert under, f"{target} is on no floor of LAYERS: add it there"
    return min(under)


def _compiled_upward(name: str, path: Path, text: str | None = None) -> list[str]:
    """The compiled imports of *name* (in *path*, or in *text*) that run back up the floors."""
    mine = _floor(name)[0]
    upward = []
    for target, where in _compiled_imports(name, path, text):
        if target in ("fastgen", name) or name.startswith(target + "."):
            continue  # its own package (and folder): imported first anyway, as in Python
        theirs = _target_floor(target)
        if theirs > mine:
            upward.append(f"{name} (floor {mine}, {where}) -> {target} (floor {theirs})")
    return upward


def test_no_cimport_runs_back_up_the_floors():
    # The extensions are held to the floors as the Python modules are: what a .pyx or .pxd
    # cimports, and the folders of the .pxi files and C headers it reads.
    upward = []
    for name in _compiled_modules():
        path = SOURCE_PACKAGE.parent / name.replace(".", "/")
        for suffix in (".pyx", ".pxd"):
            if path.with_suffix(suffix).is_file():
                upward += _compiled_upward(name, path.with_suffix(suffix))
    assert not upward, upward


def test_the_compiled_imports_are_read():
    # The reader sees the arrows the layering rests on: the one game loop cimports the
    # core's Chooser, and the simulations' loops and the trainer's self-play cimport it;
    # pubeval's chooser, the random one and the forward pass subclass that Chooser; the
    # trainer reads the kernel's header, which lives in fastgen/nets.
    def targets(name, suffix=".pyx"):
        path = SOURCE_PACKAGE.parent / (name.replace(".", "/") + suffix)
        return {t for t, _ in _compiled_imports(name, path)}

    assert {"fastgen.core._core", "fastgen.core._dice", "fastgen.core._chooser",
            "fastgen.core"} <= targets("fastgen.sim._loop", ".pxd")  # _platform.h
    assert "fastgen.core._chooser" in targets("fastgen.players._pubeval") & targets("fastgen.core._roll")
    assert {"fastgen.core._core", "fastgen.core._dice", "fastgen.core._chooser", "fastgen.sim._loop",
            "fastgen.sim"} <= targets("fastgen.sim._play")  # its own .pxi files
    assert {"fastgen.core._chooser", "fastgen.nets._mlp"} <= targets("fastgen.nets._forward")
    assert {"fastgen.core._core", "fastgen.nets._mlp", "fastgen.train",
            "fastgen.sim._loop"} <= targets("fastgen.train._selfplay")
    assert targets("fastgen.nets._mlp", ".pxd") == {"fastgen.nets"}


def test_every_pxi_is_included_by_an_extension():
    # A .pxi is checked as part of the .pyx that includes it: none may be left over.
    included = set()
    for pyx in SOURCE_PACKAGE.rglob("*.pyx"):
        for m in _INCLUDE.finditer(pyx.read_text(encoding="utf-8")):
            included.add((pyx.parent / m.group(1)).resolve())
    stray = [str(p.relative_to(REPO)) for p in sorted(SOURCE_PACKAGE.rglob("*.pxi")) if p.resolve() not in included]
    assert not stray, stray


#: A compiled module's source with every kind of compiled import, and text that only
#: looks like one (in a docstring, a comment, verbatim C).
_SYNTHETIC = '''
"""A module whose docstring names the game loops:
from fastgen.sim._play cimport nothing (text, not a cimport)"""
from libc.stdint cimport int8_t
cimport cython
from fastgen.core._core cimport Ctx, generate
from fastgen.core._dice cimport (
    mix64,  # the hash
    roll_of,
)
from fastgen.sim._play cimport rollout_random_range
from fastgen.players cimport _pubeval
cimport fastgen.train._selfplay as selfplay
# from fastgen.envs._kernel cimport nothing: a comment
cdef extern from "_mlp.h":
    pass
cdef extern from "_platform.h":
    int fg_stopped(const int* flag) noexcept nogil
cdef extern from "stdint.h":
    pass
cdef extern from *:
    """
    #include "_td.h"
    """
'''


def test_the_floors_hold_on_a_known_upward_cimport(tmp_path):
    # The check above can fail: from the core, a cimport of the game loops, of pubeval
    # (``from pkg cimport mod``), of the trainer (``cimport X as Y``), and a header of
    # fastgen.nets are caught; the core's own and C's are not, nor text in strings or
    # comments. From the trainer (the top floor but one) the same lines are all allowed.
    core = SOURCE_PACKAGE / "core" / "_synthetic.pyx"  # not written: its text is given
    upward = _compiled_upward("fastgen.core._synthetic", core, _SYNTHETIC)
    assert sorted(u.split(" -> ")[1].split()[0] for u in upward) == [
        "fastgen.nets", "fastgen.players._pubeval", "fastgen.sim._play", "fastgen.train._selfplay"], upward
    assert all("_synthetic.pyx:" in u for u in upward), upward
    assert _compiled_upward("fastgen.train._synthetic", SOURCE_PACKAGE / "train" / "_synthetic.pyx", _SYNTHETIC) == []
    # An included .pxi is read as part of its .pyx, wherever the files are.
    (tmp_path / "_part.pxi").write_text("from fastgen.analysis.single cimport nothing\n")
    upward = _compiled_upward("fastgen.nets._whole", tmp_path / "_whole.pyx", 'include "_part.pxi"\n')
    mine, theirs = _floor("fastgen.nets")[0], _floor("fastgen.analysis")[0]
    assert upward == [f"fastgen.nets._whole (floor {mine}, _part.pxi:1) -> fastgen.analysis.single (floor {theirs})"]


@pytest.mark.parametrize("name", ["default_chunk_size", "read_manifest", "game_hash", "mix", "uniform_index"])
def test_each_shared_helper_of_the_simulations_is_defined_once(name):
    # The chunking rule, the manifest reader and the game hash live in one module each of
    # the floors under the simulations (fastgen.sim.cluster, fastgen.sim.store,
    # fastgen.core.hashing); the simulations import them rather than keep a copy.
    found = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef) and node.name.lstrip("_") == name
    ]
    assert len(found) == 1, found
    assert found[0].split(":")[0][:-3].replace("/", ".") in ("fastgen.sim.cluster", "fastgen.sim.store", "fastgen.core.hashing")


def test_no_re_export_modules():
    for gone in ("_api_game.py", "_api_notation.py"):
        assert not (PACKAGE / gone).exists()
    for path in PACKAGE.glob("*.py"):
        tree = ast.parse(path.read_text())
        stars = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)]
        assert not stars, path.name


def test_public_names_come_from_their_defining_modules():
    for name in fastgen.__all__:
        value = getattr(fastgen, name)
        module = getattr(value, "__module__", None)
        if module is not None and module.startswith("fastgen."):
            assert not module.split(".")[-1].startswith("_api"), (name, module)


def test_import_fastgen_loads_no_extra():
    done = _run(
        "import sys, fastgen; "
        f"print(','.join(sorted(m for m in {EXTRAS!r} if m in sys.modules)))"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", f"import fastgen imported extras: {done.stdout.strip()}"


#: Loaded on first use, not by ``import fastgen`` (fastgen/__init__.py, PEP 562).
LAZY = ["fastgen.sim", "fastgen.bearoff", "fastgen.players", "fastgen.games.game", "fastgen.games.match",
        "fastgen.search", "fastgen.reference", "fastgen.formats.fibs", "fastgen.formats.matfile", "fastgen.formats.reader",
        "fastgen.formats.sgf", "fastgen.formats.xg", "fastgen.cube", "fastgen.nets", "fastgen.train",
        "fastgen.analysis", "fastgen.envs", "fastgen.cli"]


def test_import_fastgen_loads_the_generator_and_nothing_above_it():
    done = _run(
        "import sys, fastgen; fastgen.legal_plays(fastgen.STARTING_BOARD, (3, 1)); "
        f"print(' '.join(sorted(m for m in sys.modules if m.startswith(tuple({LAZY!r})))))"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", f"import fastgen imported {done.stdout.strip()}"


def test_lazy_public_names_load_on_first_use():
    # In a fresh interpreter: every public name resolves, to the object its defining
    # module holds; dir() lists them; fastgen.perft stays the function when its module
    # fastgen.search.perft is imported by another (here the perft subcommand's).
    done = _run(
        "import importlib, fastgen; import fastgen.cli.perft; "
        "assert fastgen.perft is importlib.import_module('fastgen.search.perft').perft, fastgen.perft; "
        "assert set(fastgen.__all__) <= set(dir(fastgen)) and 'bearoff' in dir(fastgen); "
        "from fastgen import rollout_plays, Game, bearoff; "
        "assert rollout_plays.__module__ == 'fastgen.sim.decide.front' and Game.__module__ == 'fastgen.games.game'; "
        "assert bearoff.build_one_sided.__module__ == 'fastgen.bearoff.build'; "
        "[getattr(fastgen, n) for n in fastgen.__all__]; "
        "assert fastgen.perft.__module__ == 'fastgen.search.perft' and callable(fastgen.perft); "
        "print(fastgen.rollout(games=4, policy='pubeval', seed=1).summary().games)"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "4"
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        fastgen.nope  # noqa: B018
    for name, module in fastgen._LAZY_NAMES.items():
        value = getattr(fastgen, name)
        assert value is getattr(importlib.import_module(module), name), name
        if hasattr(value, "__module__"):
            assert value.__module__ == module, name


def test_type_checkers_see_every_lazy_name():
    # The TYPE_CHECKING block of fastgen/__init__.py imports what __getattr__ loads, so
    # mypy knows each name's type: the two lists are the same.
    tree = ast.parse((PACKAGE / "__init__.py").read_text())
    block = next(n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING")
    seen = {a.asname or a.name for n in block.body if isinstance(n, ast.ImportFrom) for a in n.names}
    assert seen == set(fastgen._LAZY_NAMES) | set(fastgen._LAZY_MODULES)


@pytest.mark.parametrize("name", ["fastgen.sim.rollout.front", "fastgen.games.game", "fastgen.formats.matfile", "fastgen.cli.main"])
def test_core_modules_load_no_extra(name):
    done = _run(
        f"import sys, importlib; importlib.import_module({name!r}); "
        f"print(','.join(sorted(m for m in {EXTRAS!r} if m in sys.modules)))"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", f"{name} imported extras: {done.stdout.strip()}"


#: The subpackages whose errors are importable beside them (``fastgen.formats.MatFileError``).
ERROR_HOMES = ["fastgen", "fastgen.games", "fastgen.formats", "fastgen.sim", "fastgen.players", "fastgen.envs",
               "fastgen.bearoff", "fastgen.nets", "fastgen.cube", "fastgen.train"]


def test_every_error_class_is_public_and_a_value_error():
    # Every exception is defined in fastgen.errors (the ground floor, so that every floor
    # can raise it) and is public there; the errors of a subsystem are importable beside
    # it too, each from one subpackage at most (besides the top level, which keeps the
    # few its functions raise), and a name that left the top level says where it went.
    import inspect

    from fastgen import errors

    homes = {place: importlib.import_module(place) for place in ERROR_HOMES}
    for name, value in vars(errors).items():
        if inspect.isclass(value) and issubclass(value, Exception) and value.__module__ == errors.__name__:
            beside = [p for p, m in homes.items() if p != "fastgen" and name in m.__all__]
            assert all(getattr(homes[p], name) is value for p in beside), name
            assert len(beside) <= 1, (name, beside)
            if name in fastgen._MOVED_NAMES:  # a name that left the top level points to its home
                assert fastgen._MOVED_NAMES[name] == (beside[0] if beside else "fastgen.errors", name), name
            if value is not errors.FastgenError and not issubclass(value, Warning):  # warnings are not errors
                assert issubclass(value, ValueError), name


#: Source files: the Python, Cython and C sources of the package, tests, benchmarks and examples.
SOURCE_SUFFIXES = {".py", ".pyx", ".pxd", ".pxi", ".pyi", ".h", ".c", ".sh"}


def _tracked_sources() -> list[Path]:
    """The repository's source files (git's list when this is a checkout, else the tree)."""
    done = subprocess.run(["git", "ls-files"], capture_output=True, text=True, cwd=REPO)
    if done.returncode == 0 and done.stdout.strip():
        paths = [REPO / line for line in done.stdout.split("\n") if line]
    else:  # an unpacked sdist: the source folders and the files at the top, without the
        # C that Cython writes beside each .pyx when the package is built there
        paths = [p for d in SOURCE_DIRS for p in (REPO / d).rglob("*")] + list(REPO.glob("*"))
        paths = [p for p in paths if not (p.suffix == ".c" and p.with_suffix(".pyx").exists())]
    return [p for p in paths if p.suffix in SOURCE_SUFFIXES and p.is_file()]


def test_the_source_list_is_this_repositorys():
    # The length check below must read the repository's files, whichever copy of the
    # package is installed: its own test files and the core's sources are among them.
    names = {str(p.relative_to(REPO)) for p in _tracked_sources()}
    assert {"tests/test_layout.py", "fastgen/core/_core.pyx", "setup.py"} <= names


def test_no_source_file_is_over_1000_lines():
    long = {str(p.relative_to(REPO)): n for p in _tracked_sources() if (n := len(p.read_text().splitlines())) > 1000}
    assert not long, long


def test_at_most_8_modules_directly_under_the_package():
    # The top level is the package's face: __init__ (the public names), __main__ (the
    # command), errors (every exception) and private helpers (_util, _typing, _version,
    # _compat); everything else lives in subpackages by floor and job.
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= 8, top
    allowed = {"__init__.py", "__main__.py", "errors.py"}
    assert not [name for name in top if name not in allowed and not name.startswith("_")], top


def test_every_in_function_import_says_why_it_is_lazy():
    # Imports belong at the top of a module; the deliberate exceptions (an optional extra
    # loaded on first use) carry a "# lazy: <reason>" comment on the import line.
    unmarked = []
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = path.read_text().splitlines()
        for fn in ast.walk(ast.parse("\n".join(lines))):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, (ast.Import, ast.ImportFrom)) and "# lazy:" not in lines[node.lineno - 1]:
                    unmarked.append(f"{path.relative_to(ROOT)}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    assert not unmarked, unmarked


def test_no_fastgen_module_is_imported_inside_a_function():
    # A module's fastgen imports sit at its top, where the layering and cycle tests see
    # them and where a broken import fails at once rather than on first use. Only the
    # command line (fastgen/cli/) imports lazily, so that --help stays quick; optional
    # extras (matplotlib) may still load inside a function.
    late = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).parts[0] == "cli":
            continue
        tree = ast.parse(path.read_text())
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.ImportFrom):
                    names = ["." * node.level + (node.module or "")]
                elif isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                else:
                    continue
                if any(n == "fastgen" or n.startswith(("fastgen.", ".")) for n in names):
                    late.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    assert not sorted(set(late)), sorted(set(late))
