"""An analysis as one self-contained HTML page: the match's equity over time as a plot,
the worst decisions each drawn as an SVG board with the play made and the best play,
and the totals table.

The plot is drawn with matplotlib (the ``plot`` extra) as inline SVG: player 0's
match-winning chance after each play at match play, or player 0's equity (points, the
cube counted) for money, one point a play, each game's stretch marked and labelled
at the top. The boards are :func:`fastgen.formats.svg.board` pictures of the position before
the roll, the dice and the cube, with the arrows of the play made, each player's line
of pips named. A decision is placed as the ``.mat`` file numbers its lines ("game 2,
move 13, Alice": the 13th line of game 2, where each line holds one action of each
player); its error is given in EMG with, at match play, the match-winning chance lost
(MWC %) or, for money, the points lost.
"""

from __future__ import annotations

import html
import io
import math
from typing import Any

from fastgen.formats import svg
from fastgen._util import install_hint

from fastgen.analysis.report import statistics_rows
from fastgen.analysis.records import mat_numbers

__all__ = ["html_report", "equity_curve"]

_BOARD_SIZE = 440  # px: the pips lines about 12 px high

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; }
table { border-collapse: collapse; } td, th { padding: 0.15em 0.8em; text-align: left; }
tr.section td { font-weight: bold; padding-top: 0.8em; border-bottom: 1px solid #999; }
.decision { display: flex; gap: 1.5em; align-items: flex-start; margin: 1.2em 0; }
.decision p { margin: 0.2em 0; } .error { color: #b00; font-weight: bold; }
.caption { color: #555; }
"""


def _game_spans(a: Any) -> list[tuple[int, int, int]]:
    """(game, first x, last x) of each game's plays on the plot (x from 1, as
    :func:`equity_curve`)."""
    spans: list[list[int]] = []
    x = 0
    for m in a.moves:
        if m.played is None:
            continue
        x += 1
        if not spans or spans[-1][0] != m.game:
            spans.append([m.game, x, x])
        spans[-1][2] = x
    return [(g, lo, hi) for g, lo, hi in spans]


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
        raise ImportError(f"the HTML report draws its plot with matplotlib: {install_hint('plot')}") from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # lazy: as above

    xs, ys, starts = equity_curve(a)
    out = io.StringIO()
    # A player's name is text, never TeX: "$$" or "$\foo$" in a name is drawn as typed,
    # not handed to matplotlib's maths parser (which fails on it).
    # Text stays text (searchable, selectable), not outlines.
    with matplotlib.rc_context({"text.parse_math": False, "text.usetex": False, "svg.fonttype": "none"}):
        fig, ax = plt.subplots(figsize=(9, 3))
        try:
            ax.plot(xs, ys, color="#1f5fa8", linewidth=1.2)
            for s in starts[1:]:
                ax.axvline(s + 0.5, color="#bbb", linewidth=0.8)
            spans = _game_spans(a)
            # each game's stretch named at the top ("game 3"; just "3" where that does not fit)
            plays = max(len(xs), 1)
            for game, lo, hi in spans:
                room = (hi - lo + 1) / plays * 8.0 * 72  # points across, of the ~8 in. axes
                label = f"game {game + 1}" if room >= 42 else str(game + 1) if room >= 14 else ""
                if label:
                    ax.text((lo + hi) / 2, 1.01, label, transform=ax.get_xaxis_transform(), ha="center",
                            va="bottom", fontsize=8, color="#555", gid=f"game-{game + 1}")
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


def _error_text(a: Any, d: Any) -> str:
    """A decision's error in the units of the totals table: EMG, with the MWC lost (match)
    or the points lost (money)."""
    if a.length:
        return f"{100 * d.error_mwc:+.2f}% MWC ({d.error:+.3f} EMG)"
    return f"{d.error:+.3f} EMG ({d.error_points:+.3f} points)"


def _decision_html(a: Any, d: Any, number: int) -> str:
    who = html.escape(a.names[d.player])
    where = f"game {d.game + 1}, move {number}, {who}"
    if d.kind == "move":
        names = (a.names[1 - d.player], a.names[d.player])  # the board's rows: opponent, mover
        cube = (d.state.cube_value, None if d.state.cube_owner is None else int(d.state.cube_owner == d.player))
        picture = svg.board(d.board, play=d.play or None, dice=d.dice, cube=cube, size=_BOARD_SIZE, names=names)
        caption = f"{who} to play {d.dice[0]}{d.dice[1]}; the arrows show the play made"
        text = (f"<p>{who} rolled {d.dice[0]}{d.dice[1]} and played <b>{html.escape(d.play or 'no move')}</b></p>"
                f"<p>best: <b>{html.escape(d.best_play)}</b></p>")
    else:
        doubler = d.player if d.kind in ("no double", "double") else 1 - d.player
        names = (a.names[1 - doubler], a.names[doubler])  # the doubler on roll, before its roll
        value, owner = d.state.cube_value, d.state.cube_owner
        if d.kind in ("take", "pass"):  # the cube offered: doubled, on the taker's side (row 0)
            cube = (2 * value, 0)
            shown = f"the cube {'taken' if d.kind == 'take' else 'offered'} at {2 * value}"
        else:
            cube = (value, None if owner is None else int(owner == doubler))
            shown = "the cube centred" if owner is None else f"the cube at {value}, {html.escape(a.names[owner])}'s"
        picture = svg.board(d.board, cube=cube, size=_BOARD_SIZE, names=names)
        caption = f"{html.escape(a.names[doubler])} to roll; {shown}"
        did = {"no double": "did not double", "double": f"doubled to {2 * value}",
               "take": f"took the cube at {2 * value}", "pass": f"passed the cube at {2 * value}"}[d.kind]
        text = (f"<p>{who} {did}; proper: <b>{html.escape(d.proper.value)}</b></p>"
                f"<p>{html.escape(a.names[doubler])}'s equities (EMG): no double {d.no_double:+.3f}, "
                f"double/take {d.double_take:+.3f}, double/pass {d.double_pass:+.3f}</p>")
    mark = f" ({d.mark})" if d.mark else ""
    return (f'<div class="decision" style="display: flex; gap: 1.5em; align-items: flex-start">'
            f'<figure style="margin: 0; flex: none; width: {_BOARD_SIZE}px">{picture}'
            f'<figcaption class="caption">{caption}</figcaption></figure>'
            f'<div><p><b>{where}</b></p>{text}<p class="error">error {_error_text(a, d)}{mark}</p></div></div>')


def html_report(a: Any, worst: int = 10, *, fragment: bool = False, plot: bool = True) -> str:
    """The HTML page of :class:`fastgen.analysis.MatchAnalysis` *a* (module docstring),
    with its *worst* largest errors (none and no heading for them with 0); with
    *fragment*, only what goes inside ``<body>`` (its headings one level down), to put in
    another page; without *plot*, no plot (and no need of matplotlib)."""
    title = (f"{a.length}-point match" if a.length else "Money session") + \
        f": {a.names[0]} {a.score[0]} - {a.score[1]} {a.names[1]}"
    rows = []
    for label, x, y in statistics_rows(a):
        if x is None:
            rows.append(f'<tr class="section"><td colspan="3">{html.escape(label)}</td></tr>')
        else:
            rows.append(f"<tr><td>{html.escape(label)}</td><td>{html.escape(x.strip())}</td>"
                        f"<td>{html.escape((y or '').strip())}</td></tr>")
    numbers = mat_numbers(a.decisions)
    decisions = "\n".join(_decision_html(a, d, numbers.get(id(d), d.move)) for d in a.worst(worst)) \
        or "<p>No errors.</p>"
    seconds = "" if not math.isfinite(a.seconds) else f" in {a.seconds:.2f} s"
    note = "" if a.finished else "<p>The record stops before the end: the results count the finished games.</p>"
    h1, h2 = ("h3", "h4") if fragment else ("h1", "h2")
    plot_part = f"<{h2}>The match</{h2}>\n{_plot_svg(a)}\n" if plot else ""
    worst_part = f"<{h2}>The worst decisions</{h2}>\n{decisions}\n" if worst > 0 else ""
    body = f"""<{h1}>{html.escape(title)}</{h1}>
<p>Analysed by {html.escape(a.evaluator or 'an evaluator')} at {a.plies} ply{seconds}.</p>{note}
{plot_part}{worst_part}<{h2}>The totals</{h2}>
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
