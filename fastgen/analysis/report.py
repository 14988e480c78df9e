"""The statistics table of an analysis as text, laid out as GNU Backgammon's ``show
statistics match`` lays it out: a label column of 40 characters, then one of 23 for
each player; totals as normalised equity with the unnormalised figure in brackets (MWC
in percent at match play, points for money), rates in thousandths; a money session
ends with its points per game and their 95% confidence intervals."""

from __future__ import annotations

from typing import Any

from fastgen.analysis.stats import CUBE_ERROR_KINDS

__all__ = ["statistics_table", "statistics_rows"]

_LABELS = {"missed double below CP": "Missed doubles below CP", "missed double above CP": "Missed doubles above CP",
           "wrong double below DP": "Wrong doubles below DP", "wrong double above TG": "Wrong doubles above TG",
           "wrong take": "Wrong takes", "wrong pass": "Wrong passes"}

#: GNU Backgammon names average luck "None": written so that it does not read as a missing value.
_LUCK_NAMES = {"None": "none (average luck)"}


def statistics_table(a: Any) -> str:
    """The table of :class:`fastgen.analysis.MatchAnalysis` *a* (module docstring)."""
    lines = [f"{'Player':<40} {a.names[0]:<23} {a.names[1]:<23}".rstrip()]
    for label, x, y in statistics_rows(a):
        if x is None:
            lines.extend(["", label, ""])
        else:
            lines.append(f"{label:<40} {x:<23} {y:<23}".rstrip())
    head = (f"{a.length}-point match" if a.length else "money session") + f", score {a.score[0]}-{a.score[1]}; " \
        f"analysed by {a.evaluator or 'an evaluator'} at {a.plies} ply"
    if not a.finished:
        head += "\n(the record stops before the end: its decisions are judged, its results count finished games)"
    return "\n".join([head, ""] + lines)


def statistics_rows(a: Any) -> list[tuple[str, str | None, str | None]]:
    """The rows of the table: (label, player 0's cell, player 1's cell), a section's
    title with None cells."""
    match = bool(a.length)
    unit = "MWC" if match else "Points"
    p0, p1 = a.players
    rows: list[tuple[str, str | None, str | None]] = []

    def row(label: str, x: Any, y: Any) -> None:
        rows.append((label, str(x), str(y)))

    def each(label: str, f) -> None:
        row(label, f(p0), f(p1))

    def total(value: float, other: float) -> str:
        return f"     {value:+6.3f} ({100 * other:+7.3f}%)" if match else f"     {value:+6.3f} ({other:+7.3f})"

    def rate(value: float, other: float, count: int) -> str:
        per = other / count if count else 0.0
        return f"   {value:+6.1f}   ({100 * per:+7.3f}%)" if match else f"   {value:+6.1f}   ({per:+7.3f})"

    def section(title: str) -> None:
        rows.append((title, None, None))

    section("Chequerplay statistics")
    each("Total moves", lambda p: f"{p.moves:3d}")
    each("Unforced moves", lambda p: f"{p.unforced_moves:3d}")
    each("Unmarked moves", lambda p: f"{p.moves - sum(p.marked_moves.values()):3d}")
    for mark in ("doubtful", "bad", "very bad"):
        each(f"Moves marked {mark}", lambda p, m=mark: f"{p.marked_moves[m]:3d}")
    each(f"Error total EMG ({unit})", lambda p: total(p.chequer_error, p.chequer_error_unnormalised))
    each(f"Error rate mEMG ({unit})", lambda p: rate(p.chequer_error_rate, p.chequer_error_unnormalised,
                                                      p.unforced_moves))
    each("Chequerplay rating", lambda p: p.chequer_rating or "n/a")
    section("Luck statistics")
    each("Rolls marked very lucky", lambda p: f"{p.marked_rolls['very lucky']:3d}")
    each("Rolls marked lucky", lambda p: f"{p.marked_rolls['lucky']:3d}")
    each("Rolls unmarked", lambda p: f"{p.rolls - sum(p.marked_rolls.values()):3d}")
    each("Rolls marked unlucky", lambda p: f"{p.marked_rolls['unlucky']:3d}")
    each("Rolls marked very unlucky", lambda p: f"{p.marked_rolls['very unlucky']:3d}")
    each(f"Luck total EMG ({unit})", lambda p: total(p.luck, p.luck_unnormalised))
    each(f"Luck rate mEMG ({unit})", lambda p: rate(p.luck_rate, p.luck_unnormalised, p.moves))
    each("Luck rating", lambda p: _LUCK_NAMES.get(p.luck_rating, p.luck_rating) or "n/a")
    section("Cube statistics")
    each("Total cube decisions", lambda p: f"{p.cube_decisions:3d}")
    each("Close or actual cube decisions", lambda p: f"{p.close_cube_decisions:3d}")
    each("Doubles", lambda p: f"{p.doubles:3d}")
    each("Takes", lambda p: f"{p.takes:3d}")
    each("Passes", lambda p: f"{p.passes:3d}")
    for kind in CUBE_ERROR_KINDS:
        def cell(p, k=kind) -> str:
            count, err, other = p.cube_errors[k]
            if not count:
                return "  0"
            return f"{count:3d} ({err:+6.3f} ({100 * other:+7.3f}%))" if match else f"{count:3d} ({err:+6.3f} ({other:+7.3f}))"
        each(f"{_LABELS[kind]} (EMG ({unit}))", cell)
    each(f"Error total EMG ({unit})", lambda p: total(p.cube_error, p.cube_error_unnormalised))
    each(f"Error rate mEMG ({unit})", lambda p: rate(p.cube_error_rate, p.cube_error_unnormalised,
                                                      p.close_cube_decisions))
    each("Cube decision rating", lambda p: p.cube_rating or "n/a")
    section("Overall statistics")
    each(f"Error total EMG ({unit})", lambda p: total(p.overall_error, p.overall_error_unnormalised))
    each(f"Error rate mEMG ({unit})", lambda p: rate(p.overall_error_rate, p.overall_error_unnormalised,
                                                      p.unforced_moves + p.close_cube_decisions))
    each("Snowie error rate", lambda p: rate(p.snowie_error_rate, 0.0, 1))
    each("Overall rating", lambda p: p.overall_rating or "n/a")
    if match:
        each("Actual result", lambda p: f"{100 * p.actual_result:+7.2f}%")
        each("Luck adjusted result", lambda p: f"{100 * p.luck_adjusted_result:+7.2f}%")
        diff = a.luck_rating_difference
        row("Luck based FIBS rating diff.", "n/a" if diff is None else f"{diff:+7.2f}", "")
        each("Error based abs. FIBS rating", lambda p: f"{p.absolute_rating:6.1f}")
        each("Chequerplay errors rating loss", lambda p: f"{p.chequer_rating_loss:6.1f}")
        each("Cube errors rating loss", lambda p: f"{p.cube_rating_loss:6.1f}")
    else:
        each("Actual result", lambda p: f"{p.actual_result:+7.3f}")
        each("Luck adjusted result", lambda p: f"{p.luck_adjusted_result:+7.3f}")
        each("Advantage (actual) in ppg", lambda p: _ppg(p.ppg))
        each("95% confidence interval (ppg)", lambda p: _interval(p.ppg_interval))
        each("Advantage (luck adjusted) in ppg", lambda p: _ppg(p.luck_adjusted_ppg))
        each("95% confidence interval (ppg)", lambda p: _interval(p.luck_adjusted_ppg_interval))
    return rows


def _ppg(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.5f}"


def _interval(bounds: tuple[float, float] | None) -> str:
    return "n/a" if bounds is None else f"[{bounds[0]:8.5f},{bounds[1]:8.5f}]"
