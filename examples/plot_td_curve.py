"""Plot the training curve written by ``examples/td_bot.py --json FILE`` (the ``plot``
extra: matplotlib): points per game against pubeval, with 95% intervals, over training
time and self-play games.

    python examples/plot_td_curve.py td_bot.json docs/guides/td_curve.png
"""

from __future__ import annotations

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(source: str, target: str) -> int:
    with open(source) as f:
        run = json.load(f)
    curve = run["curve"]
    minutes = [c["seconds"] / 60 for c in curve]
    ppg = [c["ppg"] for c in curve]
    half = [1.96 * c["ppg_se"] for c in curve]
    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=100)
    ax.errorbar(minutes, ppg, yerr=half, marker="o", capsize=3, label="TD bot vs pubeval (1,000 mirrored games each)")
    final = run["final"]
    lo, hi = final["ci95"]
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.errorbar([run["seconds"] / 60], [final["ppg"]], yerr=[[final["ppg"] - lo], [hi - final["ppg"]]], marker="s",
                color="C3", capsize=3, label=f"final: {final['games']:,} mirrored games")
    ax.set_xlabel(f"training minutes ({run['games']:,} self-play games, {run['games'] / run['seconds']:,.0f}/s)")
    ax.set_ylabel("points per game vs pubeval")
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(target)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1], sys.argv[2]))
