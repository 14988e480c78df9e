"""Sphinx extension of fastgen's site: pictures, the source-file tables, the API check.

- ``.. fastgen-board::`` draws a position with :func:`fastgen.formats.svg.board` while the site
  is built (inline SVG in the HTML page), so the pictures always match the code;
- ``.. fastgen-files:: PATTERN ...`` lists the repository's files matching the glob
  patterns with the first paragraph of each file's header (its module docstring or
  leading comment): the architecture page describes a subpackage's files from the files
  themselves, so adding, splitting or renaming one needs no edit of the docs;
- every name of ``fastgen.__all__`` must be documented on an API page (as
  ``fastgen.NAME`` or under the module defining it), else the build warns (an error
  under ``sphinx-build -W``);
- docstrings and file headers are plain text first (``help()``, the source): a source
  path in them (``fastgen/train/_selfplay.pyx``) is set as code on the site (a link to
  the page of a file of docs/, or to the entry of a module's file), and a
  ``literal`` glued to the word before it (``1..``points````) still shows as one.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive, directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import make_refnode

import fastgen
from fastgen.formats import svg

logger = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parents[2]


def _cube(text: str):
    """``"2 opponent"`` -> ``(2, "opponent")``; ``"1"`` -> ``1``."""
    parts = text.split()
    return int(parts[0]) if len(parts) == 1 else (int(parts[0]), parts[1])


class BoardDirective(Directive):
    """A position drawn by :func:`fastgen.formats.svg.board` (options as that function's)."""

    option_spec = {
        "position": directives.unchanged,  # a GNU Backgammon Position ID; default: the start
        "dice": directives.unchanged,  # "6 5"
        "play": directives.unchanged,  # move text, read against the position and dice
        "cube": directives.unchanged,  # "2 opponent", "1"
        "size": directives.positive_int,
        "flipped": directives.flag,
        "alt": directives.unchanged,
    }

    def run(self):
        opts = self.options
        board = fastgen.parse_position_id(opts["position"]) if "position" in opts else fastgen.STARTING_BOARD
        dice = tuple(int(d) for d in opts["dice"].split()) if "dice" in opts else None
        kwargs = {"dice": dice, "size": opts.get("size", 560), "flipped": "flipped" in opts}
        if "cube" in opts:
            kwargs["cube"] = _cube(opts["cube"])
        if "play" in opts:
            play = fastgen.parse_play(board, dice, opts["play"])
            board, kwargs["play"] = play.board_after, play
        text = str(svg.board(board, **kwargs))
        alt = opts.get("alt", "a backgammon board drawn by fastgen.formats.svg.board")
        html = f'<figure class="fastgen-board" role="img" aria-label="{alt}">{text}</figure>'
        return [nodes.raw("", html, format="html")]


class AnalysisReportDirective(Directive):
    """The HTML report of a match file's analysis (``fastgen analyse FILE --html``),
    computed while the site is built: ``.. fastgen-analysis-report:: PATH`` (relative to
    docs/), with ``:evaluator:`` (default baseline) and ``:worst:`` (default 3)."""

    required_arguments = 1
    option_spec = {"evaluator": directives.unchanged, "worst": directives.positive_int}

    def run(self):
        from fastgen.analysis import analyse
        from fastgen.analysis.html import html_report

        path = Path(__file__).resolve().parents[1] / self.arguments[0]
        a = analyse(path, self.options.get("evaluator", "baseline"))
        a.seconds = float("nan")  # a build's timing is no figure of the page
        html = html_report(a, worst=self.options.get("worst", 3), fragment=True)
        return [nodes.raw("", html, format="html")]


def header_paragraphs(path: Path) -> list:
    """The paragraphs of a source file's docstring or leading comment, each on one line."""
    lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if not ln.startswith("# cython:")]
    text = "\n".join(lines).lstrip()
    body: list = []
    if text.startswith(('"""', "'''")):  # a module docstring
        close = text.find(text[:3], 3)
        body = [ln.strip() for ln in text[3 : close if close > 0 else None].splitlines()]
    else:  # a leading comment: #, //, /* ... */
        for ln in lines:
            stripped = ln.strip()
            if not stripped.startswith(("#", "/*", "*", "//")):
                break
            body.append(re.sub(r"^(/\*+|\*/|\*|#+|//)", "", stripped).removesuffix("*/").strip())
    paragraphs, current = [], []
    for ln in body + [""]:
        if ln:
            current.append(ln)
        elif current:
            paragraphs.append(" ".join(current))
            current = []
    return paragraphs


# A file of the repository named in plain text: fastgen/core/_core.pyx, tests/test_x.py.
SOURCE_PATH = re.compile(r"(?<![\w/.`-])((?:fastgen|tests|bench|examples|docs)/(?:[\w.-]+/)*[\w-]+\.[a-z]{1,4})"
                         r"(?![\w/`])")
# What may stand before an inline literal's opening ``, and after its closing one, for
# reStructuredText to read it as markup (besides whitespace and the line's ends).
_BEFORE = "-:/'\"<([{"
_AFTER = "-.,:;!?\\/'\")]}>"
# Directives whose content is shown as written.
_VERBATIM = {"code", "code-block", "sourcecode", "math", "testcode", "testoutput", "doctest", "parsed-literal"}


def _path_markup(match) -> str:
    """A source path as a link to its page (a file of docs/), as code linked to its
    module's entry (a Python module of fastgen/, where an API page documents it), or as
    code."""
    path = match.group(1)
    if (ROOT / path).is_file():
        if path.startswith("docs/") and path.endswith((".rst", ".md")):
            return f":doc:`{path} </{path[5:].rsplit('.', 1)[0]}>`"
        if path.startswith("fastgen/") and path.endswith(".py"):
            module = path[:-3].replace("/", ".").removesuffix(".__init__")
            return f":mod:`{path} <{module}>`"
    return f"``{path}``"


def plain_text_markup(lines: list) -> list:
    """Lines of a docstring's or file header's prose as the site shows them: bare source
    paths set as code or links, and inline literals glued to their neighbours
    (``1..``n````) separated from them by an escaped space, which shows as nothing. A
    literal may go on over several lines."""
    out, inside = [], False  # inside: within a literal opened on an earlier line
    for line in lines:
        inside = inside and bool(line.strip())  # no markup goes on past its paragraph
        pieces = line.split("``")
        for k in range(len(pieces)):
            if k:
                inside = not inside
            if inside:
                continue
            # outside a literal: paths, except inside `roles` and `links <...>`_
            parts = re.split(r"(`[^`]*`)", pieces[k])
            parts[::2] = [SOURCE_PATH.sub(_path_markup, part) for part in parts[::2]]
            piece = "".join(parts)
            if k and piece[:1] and not piece[:1].isspace() and piece[:1] not in _AFTER:
                piece = "\\ " + piece  # after a literal's end
            if k < len(pieces) - 1 and piece[-1:] and not piece[-1:].isspace() and piece[-1:] not in _BEFORE:
                piece += "\\ "  # before a literal's start
            pieces[k] = piece
        out.append("``".join(pieces))
    return out


def docstrings_as_markup(app, what, name, obj, options, lines) -> None:
    """:func:`plain_text_markup` on a docstring's prose lines (its literal blocks and
    examples stay as they are)."""
    prose = []  # the numbers of the prose lines
    block = None  # the indent of the line opening a literal block, or "doctest"
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if block == "doctest":
            if stripped:
                continue
            block = None
        elif block is not None:
            if not stripped or indent > block:
                continue
            block = None
        if stripped.startswith(">>>"):
            block = "doctest"
            continue
        prose.append(i)
        directive = re.match(r"\.\. ([\w:-]+)::", stripped)
        if directive and directive.group(1) in _VERBATIM or (not directive and stripped.endswith("::")):
            block = indent
    for i, line in zip(prose, plain_text_markup([lines[i] for i in prose])):
        lines[i] = line


class FilesDirective(SphinxDirective):
    """A table of the repository files matching the glob arguments, with their headers;
    with ``:by-folder:``, one titled table per folder (each subpackage, present or future)."""

    required_arguments = 1
    final_argument_whitespace = True
    has_content = False
    option_spec = {"by-folder": directives.flag}

    def run(self):
        paths: list = []
        for pattern in self.arguments[0].split():
            paths.extend(sorted(p for p in ROOT.glob(pattern) if p not in paths))
        if not paths:
            logger.warning("fastgen-files: no file matches %r", self.arguments[0], location=self.get_location())
        if "by-folder" not in self.options:
            return self.table(paths)
        result: list = []
        for folder in sorted({p.parent for p in paths}):
            result.append(nodes.rubric("", "", nodes.literal(text=folder.relative_to(ROOT).as_posix() + "/")))
            result.extend(self.table([p for p in paths if p.parent == folder]))
        return result

    def table(self, paths: list) -> list:
        table = nodes.table()
        group = nodes.tgroup(cols=2)
        table += group
        group += nodes.colspec(colwidth=30)
        group += nodes.colspec(colwidth=70)
        head = nodes.thead()
        group += head
        body = nodes.tbody()
        group += body

        def row(cells, parent):
            r = nodes.row()
            for cell in cells:
                entry = nodes.entry()
                entry += cell
                r += entry
            parent += r

        row([nodes.paragraph(text="file"), nodes.paragraph(text="what it holds (from its header)")], head)
        headers = {path: header_paragraphs(path) for path in paths}
        # A paragraph several files open with (e.g. "Part of the compiled core: included
        # into _core.pyx") is said once under the table; each row shows the paragraph
        # that tells its file apart.
        firsts = [h[0] for h in headers.values() if h]
        shared = {p for p in firsts if firsts.count(p) > 1}
        for path in paths:
            rel = path.relative_to(ROOT).as_posix()
            self.env.note_dependency(str(path))
            own = [p for p in headers[path] if p not in shared]
            header = own[0] if own else (headers[path][0] if headers[path] else "")
            if not header:
                logger.warning("fastgen-files: %s has no header docstring or comment", rel, location=self.get_location())
            text_nodes, messages = self.state.inline_text(plain_text_markup([header])[0], self.lineno)  # ``code``, :class:`X`
            row([nodes.paragraph("", "", nodes.literal(text=rel)), nodes.paragraph("", "", *text_nodes, *messages)], body)
        result: list = [table]
        for paragraph in sorted(shared):
            owners = ", ".join(p.name for p in paths if headers[p] and headers[p][0] == paragraph)
            text_nodes, messages = self.state.inline_text(plain_text_markup([f"{owners}: {paragraph}"])[0], self.lineno)
            result.append(nodes.paragraph("", "", *text_nodes, *messages))
        return result


def documented_public_names(documented) -> set:
    """The names of fastgen.__all__ among the documented objects' full names.

    A name counts as ``fastgen.NAME`` or under the module that defines it (e.g.
    ``fastgen.errors.InvalidBoardError``, where the errors page documents the whole
    module), provided that module's object is the one ``fastgen`` exports.
    """
    found = set()
    for full in documented:
        module, _, name = full.rpartition(".")
        if name in fastgen.__all__ and module in sys.modules:
            if module == "fastgen" or getattr(sys.modules[module], name, None) is getattr(fastgen, name):
                found.add(name)
    return found


def resolve_reexports(app, env, node, contnode):
    """Link ``fastgen.NAME`` (or a bare ``NAME`` of fastgen.__all__) to where NAME is
    documented when that is under its defining module (the exceptions)."""
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "")
    module, _, name = target.rpartition(".")
    if module not in ("", "fastgen") or name not in fastgen.__all__:
        return None
    objects = env.get_domain("py").objects
    for full, entry in objects.items():
        owner, _, short = full.rpartition(".")
        if short == name and owner in sys.modules and getattr(sys.modules[owner], name, None) is getattr(fastgen, name):
            return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id, contnode, full)
    return None


def check_public_names(app, env) -> None:
    """Warn about any name of fastgen.__all__ that no API page documents."""
    found = documented_public_names(env.get_domain("py").objects)
    missing = [n for n in fastgen.__all__ if n not in found]
    if missing:
        logger.warning("names of fastgen.__all__ missing from the API pages: %s", ", ".join(missing))


def untest_examples(app, doctree) -> None:
    """Show some pages' examples without running them under ``sphinx-build -b doctest``.

    The API pages: the docstrings' examples assume their own module's names and already
    run in ``tests/test_doctests.py``. A page of ``fastgen_doctest_needs`` whose extra is
    not installed (e.g. the RL guide without gymnasium): its examples cannot run here.
    """
    docname = app.env.path2doc(doctree["source"])
    missing = [m for m in app.config.fastgen_doctest_needs.get(docname, ()) if importlib.util.find_spec(m) is None]
    if missing:
        logger.info("fastgen_docs: the examples of %s are not run: %s not installed", docname, ", ".join(missing))
    if not (docname.startswith("api/") or missing):
        return
    for block in list(doctree.findall(nodes.doctest_block)):
        block.replace_self(nodes.literal_block(block.rawsource, block.astext(), language="pycon"))


_PARAM = re.compile(r"^:param (\w+):(.*)$")


def say_shared_parameters_once(app, what, name, obj, options, lines) -> None:
    """A numpydoc entry naming several parameters (``workers, scheduler, client:``) is
    described once: napoleon gives each name its own entry with the whole text, and the
    entries after the first of such a run now read "See *workers*." instead."""
    blocks: list = []  # (start, end, name, text) of each ":param NAME:" entry
    i = 0
    while i < len(lines):
        m = _PARAM.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j].startswith(" "):
            j += 1
        text = " ".join([m.group(2)] + [ln.strip() for ln in lines[i + 1 : j]]).split()
        blocks.append((i, j, m.group(1), " ".join(text)))
        i = j
    first = None
    for k in range(len(blocks) - 1, -1, -1):  # from the end: the line numbers stay valid
        start, end, pname, text = blocks[k]
        run_start = k
        while run_start > 0 and blocks[run_start - 1][3] == text and blocks[run_start - 1][1] == blocks[run_start][0]:
            run_start -= 1
        if run_start < k:
            first = blocks[run_start][2]
            lines[start:end] = [f":param {pname}: See *{first}*."]


def _name_type_aliases_in_unions() -> None:
    """``ArrayLike | None`` in a description reads ``numpy.typing.ArrayLike | None``.

    autodoc replaces a name of ``autodoc_type_aliases`` with a placeholder object whose
    text is the alias's value only where the alias is the whole annotation; inside a union
    the placeholder's repr, ``TypeAliasForwardRef('...')``, reached the page. Its repr is
    made the value.
    """
    from sphinx.util import inspect as sphinx_inspect

    ref = getattr(sphinx_inspect, "TypeAliasForwardRef", None)
    if ref is not None:
        ref.__repr__ = lambda self: self.name


def setup(app):
    _name_type_aliases_in_unions()
    app.add_config_value("fastgen_doctest_needs", {}, "env")
    app.connect("doctree-read", untest_examples)
    app.connect("autodoc-process-docstring", say_shared_parameters_once, priority=600)  # after napoleon
    app.connect("autodoc-process-docstring", docstrings_as_markup, priority=700)
    app.add_directive("fastgen-board", BoardDirective)
    app.add_directive("fastgen-analysis-report", AnalysisReportDirective)
    app.add_directive("fastgen-files", FilesDirective)
    app.connect("env-check-consistency", check_public_names)
    app.connect("missing-reference", resolve_reexports)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
