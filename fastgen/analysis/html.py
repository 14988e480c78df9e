"""An analysis as one self-contained HTML page: the match's equity over time as a plot,
the worst decisions each drawn as an SVG board with the play made and the best play,
and the totals table.

The plot is drawn with matplotlib (the ``plot`` extra) as inline SVG: player 0's
match-winning chance after each play at match play, or player 0's equity (points, the
cube counted) for money, one point a play, the games' starts marked. The boards are
:func:`fastgen.svg.board` pictures of the position before the roll, the dice and the
cube, with the arrows of the play made.
"""

from __future__ import annotations

import html
import io
import math
from typing import Any

from fastgen import svg

from fastgen.analysis.report import statistics_rows

__all__ = ["html_report", "equity_curve"]

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; }
table { border-collapse: collapse; } td, th { padding: 0.15em 0.8em; text-align: left; }
tr.section td { font-weight: bold; padding-top: 0.8em; border-bottom: 1px solid #999; }
.decision { display: flex; gap: 1.5em; align-items: flex-start; margin: 1.2em 0; }
.decision p { margin: 0.2em 0; } .error { color: #b00; font-weight: bold; }
"""


def equity_curve(a: Any) -> tuple[list[float], list[float], list[int]]:
    """(x, y, game starts) of the plot: y is player 0's MWC after each play (match) or
    player 0's equity in points (money), x the play's number in the match."""
    xs: list[float] = []
    ys: list[float] = []
    starts: list[int] = []
    last_game = -1
    for m in a.moves:
        if m.played is None:
            continue
        if m.game != last_game:
            starts.append(len(xs))
            last_game = m.game
        if a.length:
            value = m.mwc if m.player == 0 else 1.0 - m.mwc
        else:
            value = m.equity * m.state.cube_value * (1 if m.player == 0 else -1)
        xs.append(float(len(xs) + 1))
        ys.append(float(value))
    return xs, ys, starts


def _plot_svg(a: Any) -> str:
    try:
        import matplotlib  # lazy: the plot extra, for the HTML report only
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("the HTML report draws its plot with matplotlib: pip install 'fastgen[plot]'") from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # lazy: as above

    xs, ys, starts = equity_curve(a)
    out = io.StringIO()
    # A player's name is text, never TeX: "$$" or "$\foo$" in a name is drawn as typed,
    # not handed to matplotlib's maths parser (which fails on it).
    with matplotlib.rc_context({"text.parse_math": False, "text.usetex": False}):
        fig, ax = plt.subplots(figsize=(9, 3))
        try:
            ax.plot(xs, ys, color="#1f5fa8", linewidth=1.2)
            for s in starts[1:]:
                ax.axvline(s + 0.5, color="#bbb", linewidth=0.8)
            ax.set_xlabel("play")
            ax.set_ylabel(f"{a.names[0]}'s " + ("match-winning chance" if a.length else "equity (points)"))
            if a.length:
                ax.set_ylim(0, 1)
                ax.axhline(0.5, color="#ddd", linewidth=0.8)
            ax.margins(x=0.01)
            fig.tight_layout()
            fig.savefig(out, format="svg")
        finally:
            plt.close(fig)
    text = out.getvalue()
    return text[text.index("<svg"):]


def _decision_html(a: Any, d: Any) -> str:
    who = html.escape(a.names[d.player])
    where = f"game {d.game + 1}, move {d.move}"
    if d.kind == "move":
        cube = (d.state.cube_value, None if d.state.cube_owner is None else int(d.state.cube_owner == d.player))
        picture = svg.board(d.board, play=d.play or None, dice=d.dice, cube=cube, size=360)
        text = (f"<p>{who} rolled {d.dice[0]}{d.dice[1]} and played <b>{html.escape(d.play or 'no move')}</b></p>"
                f"<p>best: <b>{html.escape(d.best_play)}</b></p>")
    else:
        owner = d.state.cube_owner
        cube = (d.state.cube_value, None if owner is None else int(owner == d.state.on_roll))
        picture = svg.board(d.board, cube=cube, size=360)
        text = (f"<p>{who}: <b>{html.escape(d.kind)}</b>; proper: <b>{html.escape(d.proper.value)}</b></p>"
                f"<p>no double {d.no_double:+.3f}, double/take {d.double_take:+.3f}, "
                f"double/pass {d.double_pass:+.3f}</p>")
    mark = f" ({d.mark})" if d.mark else ""
    return (f'<div class="decision"><div>{picture}</div><div><p>{where}</p>{text}'
            f'<p class="error">error {d.error:+.3f}{mark}</p></div></div>')


def html_report(a: Any, worst: int = 10, *, fragment: bool = False) -> str:
    """The HTML page of :class:`fastgen.analysis.MatchAnalysis` *a* (module docstring),
    with its *worst* largest errors; with *fragment*, only what goes inside ``<body>``
    (its headings one level down), to put in another page."""
    title = (f"{a.length}-point match" if a.length else "Money session") + \
        f": {a.names[0]} {a.score[0]} - {a.score[1]} {a.names[1]}"
    rows = []
    for label, x, y in statistics_rows(a):
        if x is None:
            rows.append(f'<tr class="section"><td colspan="3">{html.escape(label)}</td></tr>')
        else:
            rows.append(f"<tr><td>{html.escape(label)}</td><td>{html.escape(x.strip())}</td>"
                        f"<td>{html.escape((y or '').strip())}</td></tr>")
    decisions = "\n".join(_decision_html(a, d) for d in a.worst(worst)) or "<p>No errors.</p>"
    seconds = "" if not math.isfinite(a.seconds) else f" in {a.seconds:.2f} s"
    note = "" if a.finished else "<p>The record stops before the end: the results count the finished games.</p>"
    h1, h2 = ("h3", "h4") if fragment else ("h1", "h2")
    body = f"""<{h1}>{html.escape(title)}</{h1}>
<p>Analysed by {html.escape(a.evaluator or 'an evaluator')} at {a.plies} ply{seconds}.</p>{note}
<{h2}>The match</{h2}>
{_plot_svg(a)}
<{h2}>The worst decisions</{h2}>
{decisions}
<{h2}>The totals</{h2}>
<table class="fastgen-analysis"><tr><th>Player</th><th>{html.escape(a.names[0])}</th><th>{html.escape(a.names[1])}</th></tr>
{chr(10).join(rows)}
</table>"""
    if fragment:
        return f'<div class="fastgen-analysis">{body}</div>'
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>{_STYLE}</style></head><body>
{body}
</body></html>
"""
