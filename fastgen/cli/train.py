"""The ``fastgen train`` subcommand: train a network from scratch, and plot its curve.

    fastgen train td --out bot.npz --games 1000000 --hidden 128 --threads 2
    fastgen train td --out bot.npz --resume [--games 2000000]
    fastgen train supervise bot.npz --data rollouts/ --out refined.npz [--workers 2]
    fastgen train plot bot.curve.json --out curve.png        # the plot extra

``td`` writes its checkpoint to ``--out`` at every point of the curve (a network file:
``fastgen duel bot.npz pubeval`` plays it) and the curve to ``--log`` (by default the
checkpoint's name with ``.curve.json``), shows a tqdm progress bar on a terminal, and
on Ctrl-C stops promptly leaving the last checkpoint; ``--resume`` goes on from it with
its own settings and gives the same weights as an uninterrupted run. ``plot`` draws a
curve log (or a checkpoint's curve) with matplotlib.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from typing import Any, Callable

from fastgen.cli.args import add_subcommand, float_in_range, int_in_range, spec_arg
from fastgen.cli.output import json_text
from fastgen._util import MAX_THREADS, atomic_write, install_hint
from fastgen.formats.checked import check_destination, parse_json, read_text
from fastgen.errors import CheckpointError, FastgenError, InvalidArgumentError
from fastgen.train.checkpoint import check_curve, checkpoint_path, read_checkpoint
from fastgen.nets.network import Network
from fastgen.sim.duel.front import duel
from fastgen.train.refine import SuperviseConfig, supervise
from fastgen.train.config import TDConfig
from fastgen.train.td_lambda import resume_td, td

__all__ = ["add_parser", "curve_log_path"]

_DEFAULTS = TDConfig()
_SUP = SuperviseConfig()


def curve_log_path(out: str) -> str:
    """The default curve log beside checkpoint *out*: ``bot.npz`` (or ``bot``, which is
    written as ``bot.npz``) -> ``bot.curve.json``."""
    base = out[:-4] if out.endswith(".npz") else out
    return base + ".curve.json"


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``train`` subcommand (td, plot) on an argparse *subparsers* object."""
    parser = add_subcommand(
        subparsers, "train", help="train a network from scratch by self-play; plot its curve",
        description="Train a fastgen network by TD(lambda) self-play in the compiled core, with checkpoints, "
        "resume and a training curve (duels against pubeval and against the previous point).",
    )
    sub = parser.add_subparsers(dest="train_command", metavar="{td,supervise,plot}", required=True)
    t = add_subcommand(sub, "td", help="TD(lambda) self-play from random weights",
                       description="Train a network (Tesauro's 198 inputs and the contact features, one hidden layer, "
                       "five outputs) by TD(lambda) self-play; the checkpoint at --out is a network file.")
    t.add_argument("--out", metavar="PATH.npz", required=True, help="the checkpoint (written at every curve point)")
    t.add_argument("--resume", action="store_true",
                   help="go on from the checkpoint at --out, with its settings (a setting given must agree with the "
                   "checkpoint's; --games may raise the total)")
    t.add_argument("--games", type=int_in_range(1), help=f"self-play games in all (default: {_DEFAULTS.games})")
    # The settings default to None ("not given"), so that --resume can refuse one that
    # contradicts the checkpoint; a new run takes TDConfig's default for each.
    t.add_argument("--hidden", type=int_in_range(1, 2048), help=f"hidden units (default: {_DEFAULTS.hidden})")
    t.add_argument("--no-contact", action="store_true", default=None,
                   help="Tesauro's 198 inputs only, without the contact features")
    t.add_argument("--lam", type=float_in_range(0.0, 1.0), help=f"lambda (default: {_DEFAULTS.lam})")
    t.add_argument("--lr", type=float_in_range(0.0, 10.0), help=f"step size at the start (default: {_DEFAULTS.lr})")
    t.add_argument("--lr-end", type=float_in_range(0.0, 10.0),
                   help=f"step size at the end (default: {_DEFAULTS.lr_end})")
    t.add_argument("--threads", type=int_in_range(1, MAX_THREADS),
                   help=f"threads (one weight copy each) (default: {_DEFAULTS.threads})")
    t.add_argument("--sync", type=int_in_range(1),
                   help=f"games a thread plays between averagings (default: {_DEFAULTS.sync})")
    t.add_argument("--seed", type=int_in_range(0, 2**63 - 1),
                   help=f"first weights and dice (default: {_DEFAULTS.seed})")
    t.add_argument("--eval-every", type=int_in_range(1),
                   help=f"games between curve points (default: {_DEFAULTS.eval_every})")
    t.add_argument("--eval-games", type=int_in_range(0),
                   help=f"mirrored games of each curve duel (even; 0: no duels) (default: {_DEFAULTS.eval_games})")
    t.add_argument("--log", metavar="PATH.json", help="the curve log (default: --out with .curve.json)")
    t.add_argument("--no-progress", action="store_true", help="no progress bar")
    t.add_argument("--json", action="store_true", help="print the result as JSON")
    t.set_defaults(func=run_td)
    s = add_subcommand(sub, "supervise", help="refine a network on rollouts of positions from its own games",
                       description="Sample positions from NET's self-play (close decisions first), roll each out with "
                       "NET, train NET on the rollouts' probabilities and write the result to --out; the data set in "
                       "--data is resumed and reused.")
    s.add_argument("net", metavar="NET.npz", help="the network to refine (one a trainer made)")
    s.add_argument("--data", metavar="FOLDER", required=True, help="the data set's folder (made, resumed or reused)")
    s.add_argument("--out", metavar="PATH.npz", required=True, help="the refined network")
    s.add_argument("--positions", type=int_in_range(10), default=_SUP.positions, help="positions to roll out")
    s.add_argument("--trials", type=int_in_range(1), default=_SUP.trials, help="trials a position")
    s.add_argument("--truncate", type=int_in_range(0), default=_SUP.truncate, help="plies a trial (0: to the end)")
    s.add_argument("--epochs", type=int_in_range(1), default=_SUP.epochs, help="passes over the data set")
    s.add_argument("--lr", type=float_in_range(0.0, 10.0), default=_SUP.lr, help="step size at the start")
    s.add_argument("--lr-end", type=float_in_range(0.0, 10.0), default=_SUP.lr_end, help="step size at the end")
    s.add_argument("--seed", type=int_in_range(0, 2**62), default=_SUP.seed, help="positions, trials and order")
    s.add_argument("--threads", type=int_in_range(1, MAX_THREADS), default=1, help="threads a rollout")
    s.add_argument("--workers", type=int_in_range(1, 1024), help="roll out on a new local Dask cluster of N processes")
    s.add_argument("--teacher", type=spec_arg("evaluator"), metavar="SPEC",
                   help="roll the positions out with this evaluator instead of NET (gnubg:0: GNU Backgammon's nets)")
    s.add_argument("--eval-games", type=int_in_range(0), default=2000,
                   help="mirrored games of the duels of the refined network against NET and the referee (0: none)")
    s.add_argument("--referee", type=spec_arg("policy"), default="pubeval", metavar="SPEC",
                   help="the second duel's opponent: pubeval, gnubg:0 (GNU Backgammon's nets) or any policy spec")
    s.add_argument("--no-progress", action="store_true", help="no progress bar")
    s.add_argument("--json", action="store_true", help="print the result as JSON")
    s.set_defaults(func=run_supervise)
    p = add_subcommand(sub, "plot", help="draw a training curve (the plot extra)",
                       description="Draw a curve log (or a checkpoint's curve): points per game against "
                       "pubeval and against the previous point, with 95%% intervals.")
    p.add_argument("curve", metavar="CURVE", help="a .curve.json log or a checkpoint .npz")
    p.add_argument("--out", metavar="PATH.png", required=True, help="the picture (.png, .svg or .pdf)")
    p.set_defaults(func=run_plot)
    return parser


def _bar(enabled: bool, total: int, done: int, unit: str = "game", desc: str = "td") -> Any:
    """A tqdm bar on stderr when *enabled* and stderr is a terminal, else None."""
    if not enabled or not sys.stderr.isatty():
        return None
    from tqdm import tqdm  # lazy: its import is a fifth of import fastgen's time; loaded when a bar is shown
    return tqdm(total=total, initial=done, unit=unit, file=sys.stderr, desc=desc, leave=False)


def _run_with_bar(command: str, bar: Any, work: Callable[[], Any]) -> Any:
    """work()'s result, *bar* closed after it; None after printing a FastgenError (or an
    OSError writing a file) as the command's error."""
    try:
        return work()
    except FastgenError as exc:
        print(f"fastgen train {command}: error: {exc}", file=sys.stderr)
        return None
    except OSError as exc:  # a file that could be written when the run started, and no longer can
        where = f" {exc.filename!r}" if exc.filename else ""
        print(f"fastgen train {command}: error: cannot write{where}: {exc.strerror or exc}", file=sys.stderr)
        return None
    finally:
        if bar is not None:
            bar.close()


#: The settings of ``train td`` given on the command line: (TDConfig field, flag).
_TD_FLAGS = (("hidden", "--hidden"), ("contact", "--no-contact"), ("lam", "--lam"), ("lr", "--lr"),
             ("lr_end", "--lr-end"), ("threads", "--threads"), ("sync", "--sync"), ("seed", "--seed"),
             ("eval_every", "--eval-every"), ("eval_games", "--eval-games"))


def _given_settings(args: argparse.Namespace) -> dict:
    """The TDConfig settings the user gave on the command line (the flags left out are
    None), by field name; ``--games`` is not among them."""
    given = {field: getattr(args, field) for field, _ in _TD_FLAGS if field != "contact"}
    given["contact"] = None if args.no_contact is None else not args.no_contact
    return {k: v for k, v in given.items() if v is not None}


def _check_resume_flags(args: argparse.Namespace, config: dict, out: str) -> None:
    """InvalidArgumentError naming the first setting given with --resume that differs
    from the checkpoint's (a resumed run keeps its settings; --games may raise the total)."""
    given = _given_settings(args)
    for field, flag in _TD_FLAGS:
        if field not in given or given[field] == config[field]:
            continue
        if field == "contact":
            shown, have = flag, "with the contact features"
        else:
            shown, have = f"{flag} {given[field]}", f"{flag} {config[field]}"
        raise InvalidArgumentError(f"{shown} contradicts the checkpoint {out!r}, which was made with {have}: "
                                   "--resume goes on with the checkpoint's settings (only --games may change, to "
                                   "extend the run)")


def run_td(args: argparse.Namespace) -> int:
    """Train (or resume) from parsed arguments; returns the exit code."""
    args.out = checkpoint_path(args.out)  # the file written: "bot" is written as bot.npz
    log = args.log or curve_log_path(args.out)
    try:
        if args.resume:
            ck = read_checkpoint(args.out, "td")
            _check_resume_flags(args, ck.config, args.out)
            total, done = args.games or ck.config["games"], ck.games
        else:
            settings = {**dataclasses.asdict(_DEFAULTS), **_given_settings(args)}
            settings["games"] = args.games or _DEFAULTS.games
            config = TDConfig(**settings)
            total, done = config.games, 0
        check_destination(args.out, "checkpoint", InvalidArgumentError)
        check_destination(log, "curve log", InvalidArgumentError)
    except FastgenError as exc:
        print(f"fastgen train td: error: {exc}", file=sys.stderr)
        return 2
    bar = _bar(not args.no_progress and not args.json, total, done)
    curve: list = list(ck.curve) if args.resume else []

    def progress(info: dict) -> None:
        if "loss" in info:  # a curve point
            curve.append(info)
            _write_log(log, curve)
            line = _point_line(info)
            if bar is not None:
                bar.write(line, file=sys.stderr)
            elif not args.json:
                print(line, file=sys.stderr, flush=True)
        elif bar is not None:
            bar.update(info["games"] - bar.n)

    run = _run_with_bar("td", bar, lambda: resume_td(args.out, games=args.games, progress=progress) if args.resume
                        else td(config, checkpoint=args.out, progress=progress))
    if run is None:
        return 2
    result = {"checkpoint": args.out, "log": log, "games": run.games, "seconds": round(run.seconds, 3),
              "games_per_second": round((run.games - done) / max(run.seconds - (ck.seconds if args.resume else 0.0), 1e-9), 1),
              "last": run.curve[-1] if run.curve else None}
    if args.json:
        print(json_text(result, indent=2))
        return 0
    last = result["last"]
    vs = "" if not last or "pubeval" not in last else (
        f"; against pubeval {last['pubeval']['ppg']:+.3f} ppg (95% {last['pubeval']['ci95'][0]:+.3f} .. "
        f"{last['pubeval']['ci95'][1]:+.3f})")
    print(f"trained {run.games:,} games in {run.seconds:.1f} s ({result['games_per_second']:,.0f} games/s){vs}; "
          f"checkpoint {args.out}, curve {log}")
    return 0


def run_supervise(args: argparse.Namespace) -> int:
    """Refine a network from parsed arguments; returns the exit code."""
    args.out = checkpoint_path(args.out)  # the file written: "refined" is written as refined.npz
    try:
        net = Network.load(args.net, name="start")
        config = SuperviseConfig(positions=args.positions, trials=args.trials, truncate=args.truncate or None,
                                 epochs=args.epochs, lr=args.lr, lr_end=args.lr_end, seed=args.seed,
                                 teacher=args.teacher)
        check_destination(args.out, "refined network", InvalidArgumentError)
    except FastgenError as exc:
        print(f"fastgen train supervise: error: {exc}", file=sys.stderr)
        return 2
    bar = _bar(not args.no_progress and not args.json, args.positions, 0, "position", "rollouts")

    def progress(done: int, total: int) -> None:
        if bar is not None:
            bar.update(done - bar.n)

    run = _run_with_bar("supervise", bar, lambda: supervise(net, args.data, config, workers=args.workers,
                                                            threads=args.threads, progress=progress))
    if run is None:
        return 2
    try:
        run.network.save(args.out)
    except OSError as exc:  # its folder was writable when the run started
        print(f"fastgen train supervise: error: cannot write {args.out!r}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    result: dict[str, Any] = {"out": args.out, "data": args.data, "positions": args.positions,
                              "trained": run.trained, "held_out": run.held_out,
                              "loss_before": round(run.before, 6), "loss_after": round(run.after, 6)}
    if args.teacher is not None:
        result["teacher"] = args.teacher
    referee = f"vs_{args.referee}" if args.referee == "pubeval" else "vs_referee"
    if referee == "vs_referee":
        result["referee"] = args.referee
    for key, other in (("vs_start", net), (referee, args.referee)):
        if args.eval_games:
            d = duel(run.network, other, args.eval_games, seed=1)
            result[key] = {"ppg": round(d.ppg, 5), "se": round(d.ppg_se, 5), "ci95": [round(v, 5) for v in d.ci95]}
    if args.json:
        print(json_text(result, indent=2))
        return 0
    print(f"held-out cross-entropy {run.before:.5f} -> {run.after:.5f} ({run.trained:,} positions trained, "
          f"{run.held_out:,} held out); written to {args.out}")
    for key, label in (("vs_start", "against the network it started from"), (referee, f"against {args.referee}")):
        if key in result:
            r = result[key]
            print(f"  {label}: {r['ppg']:+.3f} ppg (95% {r['ci95'][0]:+.3f} .. {r['ci95'][1]:+.3f})")
    return 0


def _point_line(p: dict) -> str:
    """One line for a curve point: games, seconds, loss and its duels."""
    parts = [f"{p['games']:,} games", f"{p['seconds']:.0f} s", f"loss {p['loss']:.4f}"]
    for key, label in (("pubeval", "vs pubeval"), ("previous", "vs previous")):
        if key in p:
            lo, hi = p[key]["ci95"]
            parts.append(f"{label} {p[key]['ppg']:+.3f} (95% {lo:+.3f} .. {hi:+.3f})")
    return "  ".join(parts)


def _write_log(path: str, points: list) -> None:
    """Write the curve so far to *path* (whole or not at all)."""
    try:
        with atomic_write(path, "w", encoding="utf-8") as f:
            json.dump(points, f, indent=1)
    except OSError as exc:
        print(f"fastgen train td: warning: cannot write the curve log {path!r}: {exc.strerror or exc}", file=sys.stderr)


def _read_curve(path: str) -> list:
    """The points of the curve log (or checkpoint ``.npz``) *path*, checked by
    :func:`fastgen.train.checkpoint.check_curve`; CheckpointError naming the file otherwise."""
    if path.endswith(".npz"):
        return read_checkpoint(path, "td").curve
    text = read_text(path, "curve log", CheckpointError)
    return check_curve(parse_json(text, "curve log", repr(path), CheckpointError), repr(path), CheckpointError)


def _games_label(x: float, _pos: object) -> str:
    """A tick of games: 500k, 1.5M."""
    return f"{x / 1e6:g}M" if abs(x) >= 1e6 else (f"{x / 1e3:g}k" if abs(x) >= 1e3 else f"{x:g}")


def run_plot(args: argparse.Namespace) -> int:
    """Draw a curve from parsed arguments; returns the exit code."""
    try:
        points = _read_curve(args.curve)
        check_destination(args.out, "picture", InvalidArgumentError)
    except FastgenError as exc:
        print(f"fastgen train plot: error: {exc}", file=sys.stderr)
        return 2
    try:
        import matplotlib  # lazy: the plot extra
        import matplotlib.ticker  # lazy: the plot extra

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # lazy: the plot extra
    except ImportError:
        print(f"fastgen train plot: error: matplotlib is needed: {install_hint('plot')}", file=sys.stderr)
        return 2
    fig, ax = plt.subplots(figsize=(7, 4))
    for key, label in (("pubeval", "against pubeval"), ("previous", "against the previous point")):
        pts = [p for p in points if key in p]
        if not pts:
            continue
        x = [p["games"] for p in pts]
        ax.plot(x, [p[key]["ppg"] for p in pts], marker="o", ms=3, label=label)
        ax.fill_between(x, [p[key]["ci95"][0] for p in pts], [p[key]["ci95"][1] for p in pts], alpha=0.2)
    ax.axhline(0, color="grey", lw=0.8)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(_games_label))
    ax.set_xlabel("self-play games")
    ax.set_ylabel("points per game (95% interval)")
    ax.legend(loc="best")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    try:
        fig.savefig(args.out)
    except OSError as exc:
        print(f"fastgen train plot: error: cannot write {args.out!r}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"{len(points)} points drawn to {args.out}")
    return 0
