"""The documentation site: it builds without a warning, its examples pass, every public
name is on an API page, and pages render in a real browser; the README stays short and
its links lead somewhere.

The site is built once per session into a temporary directory with ``python -m sphinx
-W -b html docs DIR`` (the ``docs`` extra); the tests needing it skip with a reason where
Sphinx, its theme or myst-parser is absent, and the browser tests where no headless
Chromium is installed (Debian: ``apt-get install chromium``).
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

import fastgen

from test_svg import chromium, read_png  # the project's headless-Chromium helpers

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
GUIDES = ["generation", "move-text", "games", "rollouts", "perft", "rl", "inputs"]
PAGES = (
    ["index", "getting-started", "performance", "architecture", "RULES", "CONTRIBUTING"]
    + [f"guides/{g}" for g in GUIDES]
    + [f"api/{p}" for p in ("index", "generation", "text", "games", "simulation", "inputs", "envs", "bearoff", "errors")]
)


def _needs_sphinx() -> None:
    if not (DOCS / "conf.py").is_file():
        pytest.skip("needs a source tree with docs/conf.py")
    for module in ("sphinx", "furo", "myst_parser"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed (pip install '.[docs]')")


def _sphinx(builder: str, out: Path, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", *flags, "-b", builder, str(DOCS), str(out)],
        # Not from the repository root: "python -m" puts the working directory first on
        # sys.path, and the source tree there has no compiled core after "pip install .".
        cwd=out.parent, capture_output=True, text=True, timeout=600,
    )


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    """The HTML site, built once per session with warnings as errors."""
    _needs_sphinx()
    out = tmp_path_factory.mktemp("docs") / "html"
    proc = _sphinx("html", out, "-W", "-E")
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    return out


class _Text(HTMLParser):
    """The text of a page, scripts and styles left out, and the ids of its elements."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.ids: set[str] = set()
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._skip += 1
        self.ids.update(v for k, v in attrs if k == "id" and v)

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def page(site: Path, name: str) -> _Text:
    parser = _Text()
    parser.feed((site / f"{name}.html").read_text(encoding="utf-8"))
    return parser


def test_site_builds_without_warnings_and_has_every_page(site):
    missing = [p for p in PAGES if not (site / f"{p}.html").is_file()]
    assert not missing, missing
    text = " ".join(page(site, "index").parts)
    for title in ("Getting started", "Generation in bulk", "Reinforcement-learning environments",
                  "The rules of backgammon", "API reference", "Performance", "Architecture"):
        assert title in text, title


def test_every_public_name_is_on_an_api_page(site):
    ids: set[str] = set()
    for path in (site / "api").glob("*.html"):
        ids |= page(site, f"api/{path.stem}").ids
    found = set()
    for full in ids:  # fastgen.NAME, or NAME under the module defining it (fastgen.errors.X)
        module, _, name = full.rpartition(".")
        if name in fastgen.__all__ and module.startswith("fastgen"):
            if module == "fastgen" or getattr(sys.modules.get(module), name, None) is getattr(fastgen, name):
                found.add(name)
    missing = [name for name in fastgen.__all__ if name not in found]
    assert not missing, f"names of fastgen.__all__ with no entry on the API pages: {missing}"


def test_pictures_are_drawn_by_fastgen_svg_at_build_time(site):
    html = (site / "getting-started.html").read_text(encoding="utf-8")
    assert html.count('<figure class="fastgen-board"') == 2
    assert 'data-count="5"' in html and 'class="checker mover"' in html  # the starting position's stacks
    arch = " ".join(page(site, "architecture").parts)
    for path in sorted((ROOT / "fastgen" / "core").glob("*.pyx")):  # the core's files, from their headers
        assert f"fastgen/core/{path.name}" in arch, path.name


def test_guides_examples_pass_under_the_doctest_builder(tmp_path):
    _needs_sphinx()
    proc = _sphinx("doctest", tmp_path / "doctest", "-E")
    report = (tmp_path / "doctest" / "output.txt").read_text() if (tmp_path / "doctest" / "output.txt").exists() else ""
    assert proc.returncode == 0, (report + proc.stdout + proc.stderr)[-4000:]
    ran = re.search(r"^\s*(\d+) tests\n\s*0 failures in tests", report, re.M)
    assert ran, report[-2000:]
    # getting started and the guides hold well over 100 examples; fewer would mean pages went untested
    minimum = 100 if importlib.util.find_spec("gymnasium") else 80
    assert int(ran.group(1)) >= minimum, report[-2000:]


def _render(site: Path, name: str, tmp_path: Path) -> tuple[np.ndarray, str]:
    browser = chromium()
    url = (site / f"{name}.html").as_uri()
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    png = tmp_path / f"{name.replace('/', '_')}.png"
    subprocess.run([browser, *flags, f"--screenshot={png}", "--window-size=1200,900", url],
                   capture_output=True, timeout=120, check=False)
    assert png.exists(), f"{browser} wrote no screenshot of {name}"
    dom = subprocess.run([browser, *flags, "--dump-dom", url], capture_output=True, text=True, timeout=120, check=False)
    return read_png(png), dom.stdout


@pytest.mark.parametrize(
    "name, expected",
    [
        ("index", ["fastgen", "Getting started", "Guides", "API reference"]),
        ("api/generation", ["fastgen.legal_plays", "plays_batch", "count_plays_batch", "PlayBatch"]),
    ],
)
def test_pages_render_in_headless_chromium(site, tmp_path, name, expected):
    pixels, dom = _render(site, name, tmp_path)
    assert pixels.shape[0] >= 600 and pixels.shape[1] >= 1000, pixels.shape
    # not blank: furo's page has text, a sidebar and a background; a blank page is one colour
    colours = np.unique(pixels.reshape(-1, 3)[::7], axis=0)
    assert len(colours) > 20, f"{name}: only {len(colours)} colours on the screenshot"
    dark = float((pixels.max(axis=-1) < 128).mean())  # text is dark on the light theme
    assert dark > 0.005, f"{name}: {dark:.4f} of the pixels are dark: no text drawn?"
    missing = [s for s in expected if s not in dom]
    assert not missing, f"{name}: {missing} not in the rendered DOM"


def test_readme_is_short_and_its_links_exist():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [link for link in links if "://" not in link]
    assert local, "the README links into docs/"
    assert not [link for link in local if not (ROOT / link).exists()]


def test_readme_code_without_prompts_runs():
    """The README's ``python`` blocks that are not doctests (an environment step) run."""
    if importlib.util.find_spec("gymnasium") is None:
        pytest.skip("gymnasium is not installed (pip install '.[rl]'): the README's env step cannot run")
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    plain = [b for b in blocks if ">>>" not in b]
    assert plain, "the README has no plain python block"
    for block in plain:
        namespace: dict = {}
        exec(compile(block, "README.md", "exec"), namespace)  # noqa: S102 - our own README
