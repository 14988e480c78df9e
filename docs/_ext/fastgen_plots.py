"""Sphinx extension of fastgen's site: the performance page's plots, drawn at build time.

``.. fastgen-plot:: KEY`` draws figure KEY of ``docs/_data/bench.json`` (the benchmarks'
saved results: for each figure its numbers, the command that printed them, the date and
the machine) with matplotlib (the ``plot`` extra, in the ``docs`` extra too) and puts it
in the page as inline SVG, with the command, date and machine under it. The JSON is the
one source: rerunning a command means editing its figure there, and the plot follows.

Figure kinds:

- ``barh``: one horizontal bar per entry of ``bars`` (``label``, ``value``, ``group``:
  ``"fastgen"`` or ``"baseline"``), on a log scale with ``"log": true``;
- ``bars``: vertical bars, one per entry of ``bars``;
- ``grouped``: one group of bars per entry of ``categories``, one bar per entry of
  ``series`` (``label``, ``values``); ``legend`` places the legend inside the axes
  (matplotlib's location names); without it the legend stands above the axes, clear of
  the bars and their labels.

Every bar carries its value as a label, so the plot reads without the table.
"""

from __future__ import annotations

import io
import json
import re
from html import escape
from pathlib import Path

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

DATA = Path(__file__).resolve().parents[1] / "_data" / "bench.json"
FASTGEN = "#2f6db5"  # fastgen's bars
BASELINE = "#9a9a9a"  # the baselines' (gnubg, the oracle)
SERIES = ["#2f6db5", "#e08a1e", "#3a9a5b", "#b5452f"]


def load(path: Path = DATA) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _number(value: float) -> str:
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}".rstrip("0").rstrip(".")
    if value >= 1:
        return f"{value:.2f}".rstrip("0").rstrip(".")
    return f"{value:.3f}".rstrip("0").rstrip(".")


def draw(key: str, fig_data: dict) -> str:
    """The SVG text of one figure."""
    import matplotlib
    from matplotlib.figure import Figure

    kind = fig_data["kind"]
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": key, "font.size": 10,
                                "axes.spines.top": False, "axes.spines.right": False}):
        if kind == "barh":
            bars = fig_data["bars"]
            fig = Figure(figsize=(7.2, 0.42 * len(bars) + 0.9))
            ax = fig.add_subplot()
            labels = [b["label"] for b in bars]
            values = [b["value"] for b in bars]
            colours = [FASTGEN if b.get("group") == "fastgen" else BASELINE for b in bars]
            y = range(len(bars))
            ax.barh(y, values, color=colours, height=0.65)
            ax.set_yticks(list(y), labels)
            ax.invert_yaxis()
            if fig_data.get("log"):
                ax.set_xscale("log")
                ax.set_xlim(min(values) / 2, max(values) * 6)
            else:
                ax.set_xlim(0, max(values) * 1.2)
            for i, v in enumerate(values):
                ax.text(v * (1.08 if fig_data.get("log") else 1.01), i, _number(v), va="center", fontsize=9)
            ax.set_xlabel(fig_data["unit"])
        elif kind == "bars":
            bars = fig_data["bars"]
            fig = Figure(figsize=(7.2, 3.2))
            ax = fig.add_subplot()
            x = range(len(bars))
            values = [b["value"] for b in bars]
            ax.bar(x, values, color=FASTGEN, width=0.6)
            ax.set_xticks(list(x), [b["label"] for b in bars])
            for i, v in enumerate(values):
                ax.text(i, v, _number(v), ha="center", va="bottom", fontsize=9)
            ax.set_ylim(0, max(values) * 1.2)
            ax.set_ylabel(fig_data["unit"])
            ax.set_xlabel(fig_data.get("xlabel", ""))
        elif kind == "grouped":
            cats, series = fig_data["categories"], fig_data["series"]
            fig = Figure(figsize=(7.2, 3.6))
            ax = fig.add_subplot()
            width = 0.8 / len(series)
            top = max(max(s["values"]) for s in series)
            for j, s in enumerate(series):
                xs = [i - 0.4 + width * (j + 0.5) for i in range(len(cats))]
                ax.bar(xs, s["values"], width=width * 0.92, color=SERIES[j % len(SERIES)], label=s["label"])
                for x, v in zip(xs, s["values"]):
                    ax.text(x, v, _number(v), ha="center", va="bottom", fontsize=8)
            labels = cats
            if "baselines" in fig_data:
                labels = [f"{c}\nvs {b}" for c, b in zip(cats, fig_data["baselines"])]
            ax.set_xticks(range(len(cats)), labels, fontsize=8.5 if len(cats) > 3 else 9.5)
            ax.set_ylim(0, top * 1.18)
            ax.set_ylabel(fig_data["unit"], fontsize=9)
            if "legend" in fig_data:
                ax.legend(frameon=False, fontsize=8.5, loc=fig_data["legend"])
            else:  # above the axes, in a row if it fits: clear of every bar and its label
                wide = sum(len(s["label"]) for s in series) > 80
                ax.legend(frameon=False, fontsize=8.5, loc="lower left", bbox_to_anchor=(0, 1.01),
                          ncol=1 if wide else len(series), borderaxespad=0)
        else:
            raise ValueError(f"fastgen-plot: unknown kind {kind!r} of figure {key!r}")
        fig.suptitle(fig_data["title"], fontsize=11, x=0.01, ha="left")
        ax.grid(axis="x" if kind == "barh" else "y", color="#dddddd", linewidth=0.6)
        ax.set_axisbelow(True)
        fig.set_facecolor("white")
        fig.tight_layout()
        out = io.StringIO()
        fig.savefig(out, format="svg", metadata={"Date": None})
    text = out.getvalue()
    text = text[text.index("<svg"):]  # drop the XML prolog and doctype: the SVG is inline
    # Scale with the page: the viewBox stays, the fixed size in points goes.
    return re.sub(r'<svg([^>]*?) width="[^"]+" height="[^"]+"', r'<svg\1', text, count=1)


class PlotDirective(SphinxDirective):
    """One figure of docs/_data/bench.json, with its command, date and machine under it."""

    required_arguments = 1
    has_content = False

    def run(self):
        self.env.note_dependency(str(DATA))
        self.env.note_dependency(__file__)
        data = load()
        key = self.arguments[0]
        if key not in data["figures"]:
            raise self.error(f"fastgen-plot: no figure {key!r} in {DATA.name} (it has {', '.join(data['figures'])})")
        fig_data = data["figures"][key]
        svg = draw(key, fig_data)
        alt = f"{fig_data['title']}: " + "; ".join(_describe(fig_data))
        container = nodes.container(classes=["fastgen-plot"], ids=[f"plot-{key}"])
        container += nodes.raw("", f'<div class="fastgen-plot-svg" role="img" aria-label="{escape(alt)}">{svg}</div>',
                               format="html")
        caption = nodes.paragraph(classes=["fastgen-plot-command"])
        caption += nodes.literal(text=fig_data["command"])
        machine = data["machines"].get(fig_data["machine"], fig_data["machine"])
        caption += nodes.Text(f" — {fig_data['date']}; {machine}.")
        if fig_data.get("note"):
            from fastgen_docs import SOURCE_PATH

            note = f" {fig_data['note'][0].upper()}{fig_data['note'][1:]}."
            for i, part in enumerate(SOURCE_PATH.split(note)):  # a file the note names is code
                caption += nodes.literal(text=part) if i % 2 else nodes.Text(part)
        container += caption
        return [container]


def _describe(fig_data: dict) -> list:
    """The figure's numbers as text (the SVG's accessible name)."""
    if fig_data["kind"] in ("barh", "bars"):
        return [f"{b['label']} {_number(b['value'])}" for b in fig_data["bars"]]
    return [f"{c}: " + ", ".join(f"{s['label']} {_number(s['values'][i])}" for s in fig_data["series"])
            for i, c in enumerate(fig_data["categories"])]


def setup(app):
    app.add_directive("fastgen-plot", PlotDirective)
    app.add_css_file("fastgen.css")
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
