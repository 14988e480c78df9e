"""The messages that ask for an optional extra give a pip command that installs fastgen's
own extra: the distribution's name (``fastgen`` on PyPI is an unrelated project) and an
extra that pyproject.toml defines."""

from __future__ import annotations

import re
import sys
from importlib import metadata
from pathlib import Path

import pytest

from fastgen import _util
from fastgen._util import DISTRIBUTION, EXTRAS, install_hint, installed_distribution

ROOT = Path(__file__).resolve().parents[1]  # the repository (or unpacked sdist)
SOURCES = [p for p in sorted((ROOT / "fastgen").rglob("*")) if p.suffix in {".py", ".pyx", ".pyi", ".pxd", ".pxi"}]


def _project() -> dict:
    if sys.version_info < (3, 11):
        pytest.skip("reading pyproject.toml needs Python 3.11's tomllib")
    import tomllib  # lazy: the standard library's TOML reader is 3.11+

    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


@pytest.fixture
def installed_as(monkeypatch):
    """Make the hints name *name* as the installed distribution (None: a source tree)."""

    def use(name):
        monkeypatch.setattr(_util, "installed_distribution", lambda: name)

    return use


def test_the_distribution_name_is_pyprojects_and_not_the_taken_one():
    project = _project()
    assert project["name"] == DISTRIBUTION
    assert DISTRIBUTION != "fastgen"  # PyPI's fastgen is a FastAPI command-line tool
    assert project["scripts"] == {"fastgen": "fastgen.cli.main:main"}  # the command keeps its name


def test_the_extras_the_hints_know_are_pyprojects():
    assert set(EXTRAS) == set(_project()["optional-dependencies"])


@pytest.mark.parametrize("extra", EXTRAS)
def test_each_hint_names_the_distribution_and_the_extra(extra, installed_as):
    installed_as(DISTRIBUTION)
    assert install_hint(extra) == f'pip install "{DISTRIBUTION}[{extra}]"'
    installed_as(None)  # a source tree built in place, never installed
    assert install_hint(extra).startswith(f'pip install ".[{extra}]"')
    assert "checkout" in install_hint(extra)


def test_an_unknown_extra_is_refused():
    with pytest.raises(ValueError, match="plot"):
        install_hint("plots")


def _dist_info(tmp_path: Path, name: str, script: str) -> metadata.Distribution:
    info = tmp_path / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[console_scripts]\nfastgen = {script}\n")
    return metadata.PathDistribution(info)


@pytest.mark.parametrize(
    "installed, expected",
    [
        ({DISTRIBUTION: "fastgen.cli.main:main"}, DISTRIBUTION),
        ({"fastgen": "fastgen.cli.main:main"}, "fastgen"),  # an install from before the rename
        ({"fastgen": "fastgen.main:app"}, None),  # PyPI's other fastgen: not ours
        ({}, None),
    ],
)
def test_the_installed_distribution_is_found_by_its_command(tmp_path, monkeypatch, installed, expected):
    dists = {name: _dist_info(tmp_path, name, script) for name, script in installed.items()}

    def distribution(name):
        if name not in dists:
            raise metadata.PackageNotFoundError(name)
        return dists[name]

    monkeypatch.setattr(_util.metadata, "distribution", distribution)
    monkeypatch.setattr(_util.metadata, "packages_distributions", lambda: {"fastgen": list(dists)}, raising=False)
    installed_distribution.cache_clear()
    try:
        assert installed_distribution() == expected
    finally:
        installed_distribution.cache_clear()


def test_this_environments_hint_names_its_own_installation():
    name = installed_distribution()
    if name is None:
        assert install_hint("plot").startswith('pip install ".[plot]"')
    else:
        assert any(ep.value == "fastgen.cli.main:main" for ep in metadata.distribution(name).entry_points)
        assert install_hint("plot") == f'pip install "{name}[plot]"'


def test_every_hint_in_the_package_names_a_real_extra_of_this_distribution():
    extras = set(_project()["optional-dependencies"])
    literal = re.compile(r"""pip install\s+["']?([^\s"'\[]+)\[([^\]]*)\]""")
    called = re.compile(r"""install_hint\(\s*["']([^"']*)["']""")
    literals = calls = 0
    bad = []
    for path in SOURCES:
        if path.name == "_util.py":
            continue  # the hints' builder, tested above
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(ROOT)
        if re.search(r"""(?<![\w./-])fastgen\[""", text):
            bad.append(f"{where}: a 'fastgen[...]' hint (PyPI's fastgen is another project)")
        for target, names in literal.findall(text):
            literals += 1
            if target not in (DISTRIBUTION, "."):
                bad.append(f"{where}: pip install {target}[{names}]")
            bad += [f"{where}: no extra {n!r}" for n in names.split(",") if n not in extras]
        for name in called.findall(text):
            calls += 1
            if name not in extras:
                bad.append(f"{where}: install_hint({name!r})")
    assert not bad, bad
    assert calls >= 8 and literals >= 3, (calls, literals)  # the scan found the hints


@pytest.mark.parametrize(
    "module, code, extra",
    [
        ("gnubg_nn", "from fastgen.players import evaluators; evaluators.gnubg_nn(0)", "peers"),
        ("gnubg_nn", "from fastgen.players import policies; policies.gnubg_nn(0)", "peers"),
        ("distributed", "from fastgen.sim import cluster; cluster._distributed()", "dask"),
        ("onnx", "from fastgen.nets import onnx_io; onnx_io._import_onnx()", "onnx"),
    ],
)
def test_a_missing_extra_is_named_with_its_hint(monkeypatch, module, code, extra):
    monkeypatch.setitem(sys.modules, module, None)  # "import module" fails
    with pytest.raises(Exception) as info:
        exec(code, {})
    assert str(info.value).endswith(install_hint(extra)), info.value


def test_train_plot_without_matplotlib_names_the_plot_extra(monkeypatch, tmp_path, capsys):
    from fastgen.cli.main import main

    curve = tmp_path / "bot.curve.json"
    curve.write_text('[{"games": 1000}, {"games": 2000}]')
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    status = main(["train", "plot", str(curve), "--out", str(tmp_path / "curve.png")])
    err = capsys.readouterr().err
    assert status == 2 and err.strip() == f"fastgen train plot: error: matplotlib is needed: {install_hint('plot')}", err
