"""The documentation site: it builds without a warning, its examples pass, every public
name is on an API page, and every page renders in a real browser without an error box,
raw LaTeX, a missing picture or words of the project's internal process; the README
stays short and its links lead somewhere.

The site is built once per session into a temporary directory with ``python -m sphinx
-W -b html docs DIR`` (the ``docs`` extra); the tests needing it skip with a reason where
Sphinx, its theme, myst-parser, sphinx-mathjax-offline or matplotlib is absent, and the
browser tests where no headless Chromium is installed (Debian: ``apt-get install
chromium``). Every page is loaded once per session by Chromium (``--dump-dom``, with time
for MathJax to typeset), two pages at a time, and its text is read for what a reader must
not see: error boxes, raw LaTeX, markup that did not render, bare source paths, private
names in signatures, words of the project's process (the rules are by the patterns
below); a few pages are also looked at as screenshots.
"""

from __future__ import annotations

import importlib.util
import re
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from html import unescape
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit
from pathlib import Path

import numpy as np
import pytest

import fastgen

from test_svg import chromium, read_png  # the project's headless-Chromium helpers

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
GUIDES = ["generation", "move-text", "games", "rollouts", "decide", "duels", "bearoff", "perft", "rl", "inputs"]
PAGES = (
    ["index", "getting-started", "performance", "architecture", "RULES", "CONTRIBUTING"]
    + [f"guides/{g}" for g in GUIDES]
    + [f"api/{p}" for p in ("index", "generation", "text", "games", "simulation", "bots", "inputs", "envs", "bearoff", "errors")]
)


def _needs_sphinx() -> None:
    if not (DOCS / "conf.py").is_file():
        pytest.skip("needs a source tree with docs/conf.py")
    for module in ("sphinx", "furo", "myst_parser", "sphinx-mathjax-offline", "matplotlib"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed: needs the docs extra (pip install '.[docs]')")


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
    for name in fastgen.__all__:
        getattr(fastgen, name)  # the lazy names' modules loaded, as autodoc loaded them
    ids: set[str] = set()
    for path in (site / "api").glob("*.html"):
        ids |= page(site, f"api/{path.stem}").ids
    found = set()
    for full in ids:  # fastgen.NAME, or NAME under the module defining it (fastgen.errors.X)
        full = full.removeprefix("module-")  # a module's entry: fastgen.players.engines, ...
        module, _, name = full.rpartition(".")
        if name in fastgen.__all__ and module.startswith("fastgen"):
            if module == "fastgen" or getattr(sys.modules.get(module), name, None) is getattr(fastgen, name):
                found.add(name)
    missing = [name for name in fastgen.__all__ if name not in found]
    assert not missing, f"names of fastgen.__all__ with no entry on the API pages: {missing}"


def test_every_name_that_left_the_top_level_is_documented_where_it_lives(site):
    # fastgen.read_sgf still works for a release, but the API pages document the name to
    # import it by now: fastgen.formats.read_sgf, fastgen.games.GameOverError ...
    ids: set[str] = set()
    for path in (site / "api").glob("*.html"):
        ids |= page(site, f"api/{path.stem}").ids
    missing = [f"{place}.{new}" for place, new in fastgen._MOVED_NAMES.values() if f"{place}.{new}" not in ids]
    assert not missing, f"moved names with no entry where they live now: {missing}"


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


def _screenshot(site: Path, name: str, tmp_path: Path) -> np.ndarray:
    browser = chromium()
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--virtual-time-budget=4000"]
    png = tmp_path / f"{name.replace('/', '_')}.png"
    subprocess.run([browser, *flags, f"--screenshot={png}", "--window-size=1200,900", (site / f"{name}.html").as_uri()],
                   capture_output=True, timeout=120, check=False)
    assert png.exists(), f"{browser} wrote no screenshot of {name}"
    return read_png(png)


@pytest.mark.parametrize(
    "name, expected",
    [
        ("index", ["fastgen", "Getting started", "Guides", "API reference", "fastgen-board", "12.3x"]),
        ("guides/bearoff", ["Bear-off databases", "mjx-container"]),  # the formula typeset by MathJax
        ("performance", ["Performance", "fastgen-plot", "fastgen bench"]),
        ("api/generation", ["fastgen.legal_plays", "plays_batch", "count_plays_batch", "PlayBatch"]),
    ],
)
def test_pages_render_in_headless_chromium(site, rendered, tmp_path, name, expected):
    pixels, dom = _screenshot(site, name, tmp_path), rendered[name]
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


# -- every page, as Chromium renders it ------------------------------------------------

# Words of the project's own process, which a user page must not show (docs speak to
# users: the figure or the goal itself, never the ticket it came from).
PROCESS_WORDS = [
    r"\bissues? #?\d+",
    r"\bthe issue(?:'s)?\b",
    r"\b[Tt]he bar (?:is|was) [-+]?\d",
    r"\b[Gg]oals? of issue",
    r"\(goal: ",
    r"\b(?:this|same) session\b",
    r"\bTODO\b",
    r"TypeAliasForwardRef",  # an autodoc placeholder's repr leaking into a signature
]
RAW_LATEX = [r"\\\[", r"\\\(", r"\\frac\b", r"\\binom\b", r"\\sum\b", r"\\mathrm\b"]
# Markup that did not render (reStructuredText or Markdown shown as typed, often a
# docstring written in one markup and read as another), looked for in the prose: the
# visible text outside <pre> and <code>.
RAW_MARKUP = [
    r"``",  # an inline literal
    r":(?:py:)?(?:func|class|mod|meth|attr|data|exc|obj|ref|doc|term|const|option|file|math):`",  # a role
    r"(?<!\S)\.\. [\w:-]+::",  # a directive (.. note::)
    r"(?<!\S)\.\. _[\w -]+:",  # a link target (.. _label:)
    r"\b(?:Parameters|Returns|Yields|Raises|Warns|Attributes|Examples|Notes|See Also|References)\s*\n\s*-{3,}",  # numpydoc
    r"\]\((?:https?://|\.{0,2}/|#)[^)\s]*\)",  # a Markdown link
    r"```",  # a Markdown fence
]
# Bold markers, in one text node of prose outside a signature (where **kwargs is code):
# "**" opening after a space or punctuation and before a non-space, closing the other
# way round, as reStructuredText and Markdown read them (2**40 is no bold).
RAW_BOLD = r"(?<![\w*])\*\*[^\s*](?:[^*]*?[^\s*])?\*\*(?![\w*])"
# A file of the repository named as bare text: a path of one of its folders ending in a
# file name with an extension (fastgen/core/_core.pyx, tests/test_x.py, docs/RULES.md)
# in a text node outside <code>, <pre>, <kbd>, <samp> and links (<a>): where a page names
# a file it sets the path as code (``fastgen/x.py``), or links it (a module, a page). The
# architecture page's file tables follow the rule too: docs/_ext/fastgen_docs.py sets the
# paths in the files' headers as code.
SOURCE_PATH = (r"(?<![\w/.-])(?:fastgen|tests|bench|examples|docs)/(?:[\w.-]+/)*[\w-]+"
               r"\.(?:py|pyx|pxi|pxd|pyi|h|c|rst|md|json|toml|npz)\b")
# A private name in a signature (<dt class="sig">) or in the types autodoc writes under
# it (the <em> of a field list: a parameter's type, the return type): a dotted name of
# fastgen with a part starting with one underscore (fastgen._typing.ArrayLike); dunder
# names (fastgen.__version__) are public.
PRIVATE_NAME = r"\bfastgen(?:\.\w+)*\._(?!_)\w"


_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}


class _Dom(HTMLParser):
    """What a reader sees of a rendered page: its text (scripts, styles and <noscript>
    left out; code blocks apart), the error boxes docutils or the theme put in it, its
    signatures and the types under them, and its bare text nodes (outside code and links)."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []  # all visible text
        self.prose: list[str] = []  # visible text outside <pre> and <code>
        self.prose_nodes: list[str] = []  # the same outside signatures, one text node each
        self.bare: list[str] = []  # text nodes outside <pre>, <code>, <kbd>, <samp> and <a>
        self.signatures: list[str] = []  # the text of each <dt class="sig ...">
        self.types: list[str] = []  # the <em> of field lists (parameters' and return types)
        self.boxes: list[str] = []
        self._hidden = 0
        self._code = 0
        self._stack: list[tuple] = []  # (tag, classes) of the open elements

    def _inside(self, *tags: str, cls: str = "") -> bool:
        return any(t in tags and (not cls or cls in c) for t, c in self._stack)

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "noscript"):
            self._hidden += 1
        elif tag in ("pre", "code"):
            self._code += 1
        classes = (dict(attrs).get("class") or "").split()
        if tag not in _VOID:
            self._stack.append((tag, classes))
        if tag == "dt" and "sig" in classes:
            self.signatures.append("")
        if not self._hidden and (
            "system-message" in classes  # a docutils error or warning left in the page
            or ("admonition" in classes and {"error", "warning"} & set(classes))
            # a ``.. contents::`` block, over which Furo's stylesheet writes a red "ERROR: Adding
            # a table of contents in Furo-based documentation is unnecessary..."
            or ("contents" in classes and "this-will-duplicate-information-and-it-is-still-useful-here" not in classes)
        ):
            self.boxes.append(" ".join(classes))

    def handle_endtag(self, tag):
        if tag in ("script", "style", "noscript"):
            self._hidden -= 1
        elif tag in ("pre", "code"):
            self._code -= 1
        for i in range(len(self._stack) - 1, -1, -1):
            if self._stack[i][0] == tag:
                del self._stack[i:]
                break

    def handle_data(self, data):
        if not self._hidden:
            self.text.append(data)
            signature = self._inside("dt", cls="sig")
            if signature:
                self.signatures[-1] += data
            if not self._code:
                self.prose.append(data)
                if not signature:
                    self.prose_nodes.append(data)
            if not self._inside("pre", "code", "kbd", "samp", "a"):
                self.bare.append(data)
            if self._inside("em") and self._inside("dl", cls="field-list"):
                self.types.append(data)

    def problems(self) -> list[str]:
        """The faults of the page's text: raw LaTeX, raw markup, bare source paths and
        private names in signatures (the error boxes and process words apart)."""
        prose = " ".join(self.prose)
        found = [f"raw LaTeX {m.group(0)!r} in {_around(prose, m)!r}"
                 for pattern in RAW_LATEX for m in [re.search(pattern, prose)] if m]
        found += [f"raw markup {m.group(0)!r} in {_around(prose, m)!r}"
                  for pattern in RAW_MARKUP for m in re.finditer(pattern, prose)]
        found += [f"raw bold markers {m.group(0)!r} in {_around(node, m)!r}"
                  for node in self.prose_nodes for m in re.finditer(RAW_BOLD, node)]
        found += [f"a bare source path {m.group(0)!r} in {_around(node, m)!r} (set it as code or link it)"
                  for node in self.bare for m in re.finditer(SOURCE_PATH, node)]
        found += [f"a private name {m.group(0)!r}.. in the signature {' '.join(sig.split())!r}"
                  for sig in self.signatures for m in [re.search(PRIVATE_NAME, sig)] if m]
        found += [f"a private name {m.group(0)!r}.. in the type {' '.join(t.split())!r}"
                  for t in self.types for m in [re.search(PRIVATE_NAME, t)] if m]
        return found


def _around(text: str, m: re.Match) -> str:
    return " ".join(text[max(0, m.start() - 60) : m.end() + 60].split())


def _pages(site: Path) -> list[str]:
    return sorted(p.relative_to(site).with_suffix("").as_posix() for p in site.rglob("*.html")
                  if not p.relative_to(site).parts[0].startswith(("_", ".")))


@pytest.fixture(scope="session")
def rendered(site) -> dict:
    """Every page's DOM after Chromium loaded it and ran its scripts (MathJax included)."""
    browser = chromium()

    def dump(name: str) -> str:
        proc = subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=4000",
             "--dump-dom", (site / f"{name}.html").as_uri()],
            capture_output=True, text=True, timeout=180, check=False,
        )
        return proc.stdout

    names = _pages(site)
    with ThreadPoolExecutor(max_workers=2) as pool:  # the machine has 2 cores
        return dict(zip(names, pool.map(dump, names)))


def test_every_page_renders_without_error_boxes_raw_markup_private_names_or_process_words(site, rendered):
    """No page shows an error box, raw LaTeX or markup, a bare source path, a private
    name in a signature or its types, or words of the project's process."""
    assert set(PAGES) <= set(rendered), sorted(set(PAGES) - set(rendered))
    problems = []
    for name, dom in rendered.items():
        if "</html>" not in dom:
            problems.append(f"{name}: Chromium rendered nothing")
            continue
        parser = _Dom()
        parser.feed(dom)
        text = " ".join(parser.text)
        problems += [f"{name}: an error box ({box})" for box in parser.boxes]
        problems += [f"{name}: {problem}" for problem in parser.problems()]
        problems += [f"{name}: {m.group(0)!r} in {text[max(0, m.start() - 60) : m.end() + 60]!r}"
                     for pattern in PROCESS_WORDS for m in [re.search(pattern, text)] if m]
    assert not problems, "\n".join(problems)


def test_the_checks_see_what_they_look_for():
    """The page checks above catch the faults they are for, on pages made to have them."""
    bad = ('<html><body><div class="system-message"><p>Unknown directive</p></div>'
           '<nav class="contents local" id="contents"><ul><li>Duels</li></ul></nav>'
           '<p>Goals of issue 9: the bar is 0.8, see <span class="math">\\(s_j\\)</span></p>'
           '<noscript><div class="admonition error">enable JavaScript</div></noscript>'
           '<pre>r"\\(" in code</pre></body></html>')
    parser = _Dom()
    parser.feed(bad)
    assert parser.boxes == ["system-message", "contents local"]
    prose, text = " ".join(parser.prose), " ".join(parser.text)
    assert [p for p in RAW_LATEX if re.search(p, prose)] == [r"\\\("]
    assert [p for p in PROCESS_WORDS if re.search(p, text)] == [r"\bissues? #?\d+", r"\b[Tt]he bar (?:is|was) [-+]?\d",
                                                               r"\b[Gg]oals? of issue"]


def test_the_markup_path_and_private_name_checks_see_what_they_look_for():
    """Raw markup, bare source paths and private names are found where a page shows them,
    and not in code, links, a signature's **kwargs or 2**40."""
    bad = ('<html><body><p>Use <code class="literal">``x``</code> or ``fastgen.duel``; see :func:`fastgen.duel`,'
           ' <strong>kept</strong> and **not kept**, 2**40 trials, 2**31 rolls.</p>'
           '<p>.. note:: shown</p><p>Returns\n-------\nint</p><p>[a link](https://example.org)</p>'
           '<p>in fastgen/core/_core.pyx and (tests/test_x.py)</p>'
           '<p><code>fastgen/sim/_play.pyx</code> <a href="RULES.html">docs/RULES.md</a></p>'
           '<pre>``raw`` in code, fastgen/a.py, **b**</pre>'
           '<dl class="py function"><dt class="sig sig-object py"><span>fastgen.f</span>'
           '<em>boards: fastgen._typing.ArrayLike</em>, <span>**</span><em>kwargs</em></dt>'
           '<dd><dl class="field-list"><dt>Return type</dt><dd><p><em>fastgen.core._core.Plays</em></p></dd></dl></dd></dl>'
           '<dl class="py data"><dt class="sig sig-object py">fastgen.__version__<br></dt></dl>'
           '</body></html>')
    parser = _Dom()
    parser.feed(bad)
    found = parser.problems()
    expected = ["raw markup '``'", "raw markup '``'", "raw markup ':func:`'", "raw markup '.. note::'",
                "raw markup 'Returns\\n-------'", "raw markup '](https://example.org)'",
                "raw bold markers '**not kept**'", "a bare source path 'fastgen/core/_core.pyx'",
                "a bare source path 'tests/test_x.py'", "a private name 'fastgen._t'", "a private name 'fastgen.core._c'"]
    assert len(found) == len(expected) and all(f.startswith(e) for f, e in zip(found, expected)), found


def _picture_size(path: Path) -> tuple:
    """(width, height) of a PNG, JPEG-less site's SVG or GIF; (0, 0) when unreadable."""
    data = path.read_bytes()
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return struct.unpack(">II", data[16:24])
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return struct.unpack("<HH", data[6:10])
    if path.suffix == ".svg":
        try:
            root = ET.fromstring(data)
        except ET.ParseError:
            return (0, 0)
        if root.get("viewBox"):
            _, _, w, h = (float(v) for v in root.get("viewBox").replace(",", " ").split())
            return (w, h)
        return tuple(float(re.match(r"[\d.]+", root.get(k, "0")).group(0) or 0) for k in ("width", "height"))
    return (0, 0)


class _Pictures(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.sources: list[str] = []
        self.inline_svgs = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img":
            self.sources.append(a.get("src") or "")
        elif tag in ("object", "embed"):
            self.sources.append(a.get("data") or a.get("src") or "")
        elif tag == "image" and (a.get("href") or a.get("xlink:href")):
            self.sources.append(a.get("href") or a.get("xlink:href"))
        elif tag == "svg":
            self.inline_svgs += 1


def test_every_picture_of_the_site_exists_and_has_a_size(site):
    problems, checked = [], 0
    for name in _pages(site):
        page_path = site / f"{name}.html"
        parser = _Pictures()
        parser.feed(page_path.read_text(encoding="utf-8"))
        for src in parser.sources:
            if not src:
                problems.append(f"{name}: an image without a source")
                continue
            if src.startswith("data:"):
                continue
            if urlsplit(src).scheme:
                problems.append(f"{name}: {src[:80]} is not shipped with the site (it needs a network)")
                continue
            target = (page_path.parent / unquote(urlsplit(src).path)).resolve()
            if not target.is_file():
                problems.append(f"{name}: {src} is missing from the build")
            elif min(_picture_size(target)) <= 0:
                problems.append(f"{name}: {src} has no width or height")
            checked += 1
    assert not problems, "\n".join(problems)
    assert checked >= 1, "no <img> checked: the guides' PNG figures went missing from the pages"


def test_performance_plots_are_drawn_at_build_time_with_their_commands(site):
    sys.path.insert(0, str(DOCS / "_ext"))
    import fastgen_plots  # docs/_ext: the extension that drew them

    html = (site / "performance.html").read_text(encoding="utf-8")
    figures = fastgen_plots.load()["figures"]
    for key, fig in figures.items():
        start = html.find(f'id="plot-{key}"')
        assert start >= 0, f"figure {key} of bench.json is not on the performance page"
        caption_at = html.find('class="fastgen-plot-command"', start)
        drawing = html[start:caption_at]
        assert drawing.count("<svg") == 1 and "<path" in drawing, f"figure {key}: no drawing"
        first = fig["bars"][0]["value"] if "bars" in fig else fig["series"][0]["values"][0]
        assert f">{fastgen_plots._number(first)}<" in drawing, f"figure {key}: its first value {first} is not labelled"
        caption = html[caption_at : html.find("</p>", caption_at)]
        caption = " ".join(unescape(re.sub(r"<[^>]+>", "", caption.split(">", 1)[1])).split())
        assert caption.startswith(fig["command"]) and fig["date"] in caption, (key, caption)


def test_api_pages_read_no_sentence_as_a_type(site):
    """napoleon reads a one-line attribute docstring ``"X: Y"`` as type X; a sentence with
    a colon in it (``"a's points (negative: b is ahead)"``) then shows half of itself as the
    "Type" of the attribute. A type field must at least balance its parentheses."""
    bad = []
    for path in sorted((site / "api").glob("*.html")):
        html = path.read_text(encoding="utf-8")
        for m in re.finditer(r'<dt class="field-\w+">Type<span class="colon">:</span></dt>\s*<dd class="field-\w+">(.*?)</dd>', html, re.S):
            text = " ".join(unescape(re.sub(r"<[^>]+>", "", m.group(1))).split())
            if text.count("(") != text.count(")") or text.count("[") != text.count("]"):
                bad.append(f"api/{path.stem}: Type {text!r}")
    assert not bad, "\n".join(bad)
