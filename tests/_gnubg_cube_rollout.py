"""Cubeful rollout of a cube decision (position before the roll) with GNU Backgammon 1.07.

gnubg has no one-shot command for this. What works in 1.07 (``gnubg -t -q``, commands on
stdin, no terminal needed):

1. ``set gnubgid <PositionID>:<MatchID>``  - the position, side on roll, cube, score;
2. ``hint``                                - a (0-ply) cube analysis: this creates the
                                             "hint" move record that holds a cube decision;
3. ``analyse rollout cube``                - rolls that cube decision out (No double and
                                             Double/take, cubeful, with the ``set rollout``
                                             settings) and stores the result in the record;
4. ``hint``                                - prints the stored rollout: the three cubeful
                                             values, the proper action and "Rollout details"
                                             with the standard errors.

(``rollout`` takes no argument in 1.07 -- ``rollout =cube`` is refused -- and rolls out
the position alone, printing its table only on a terminal.)

Money: equities are per current cube, as gnubg prints them (Double/take is already
multiplied by 2, Double/pass is +1.0 for a 1-cube...). Match play: ``set output mwc on``
makes gnubg print match winning chances in percent; this module returns them as
FRACTIONS (0..1), standard errors likewise.

    >>> r = cube_rollout("4HPwATDgc/ABMA", "cAkAAAAAAAAE", trials=324)   # doctest: +SKIP
    >>> r["no_double"], r["no_double_se"], r["double_take"], r["action"]  # doctest: +SKIP
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

GNUBG = os.environ.get("FASTGEN_GNUBG", "/usr/games/gnubg")

__all__ = ["cube_rollout", "rollout_commands", "parse_rollout_hint", "GnubgRolloutError"]


class GnubgRolloutError(RuntimeError):
    """gnubg failed, timed out, or printed something this module cannot read."""


def rollout_commands(position_id: str, match_id: str, trials: int = 1296, seed: int = 1,
                     threads: int = 1, prune: bool = True, bearoff_truncation: bool = False,
                     beavers: int | None = None, variance_reduction: bool = True) -> str:
    """The gnubg 1.07 script (stdin) for one cube-decision rollout.

    Every rollout setting is set explicitly, so nothing depends on gnubg's defaults or on a
    ~/.gnubgrc (the caller also runs gnubg with a fresh HOME).
    """
    onoff = lambda b: "on" if b else "off"  # noqa: E731
    lines = [
        "set player 0 human",
        "set player 1 human",
        "set display off",
        f"set threads {int(threads)}",
        # the first `hint` (needed to create the cube record) only: keep it cheap
        "set evaluation chequerplay evaluation plies 0",
        "set evaluation cubedecision evaluation plies 0",
        # --- rollout settings
        f"set rollout trials {int(trials)}",
        "set rollout cubeful on",
        f"set rollout varredn {onoff(variance_reduction)}",
        "set rollout quasirandom on",
        "set rollout initial off",
        "set rollout truncation enable off",
        f"set rollout bearofftruncation exact {onoff(bearoff_truncation)}",
        f"set rollout bearofftruncation onesided {onoff(bearoff_truncation)}",
        "set rollout later enable off",
        "set rollout limit enable off",
        "set rollout jsd stop off",
        "set rollout log off",
        "set rollout players-are-same on",
        "set rollout cube-equal-chequer on",
        "set rollout truncate-equal-player0 on",
        # without `player N` these set both players (chequer play and cube decisions) ...
        "set rollout chequerplay plies 0",
        "set rollout chequerplay cubeful on",
        "set rollout chequerplay noise 0",
        f"set rollout chequerplay prune {onoff(prune)}",
        "set rollout cubedecision plies 0",
        "set rollout cubedecision cubeful on",
        "set rollout cubedecision noise 0",
        f"set rollout cubedecision prune {onoff(prune)}",
        # ... and, to be explicit, per player too
        "set rollout player 0 chequerplay plies 0",
        "set rollout player 1 chequerplay plies 0",
        "set rollout player 0 cubedecision plies 0",
        "set rollout player 1 cubedecision plies 0",
        "set rollout rng mersenne",
        f"set rollout seed {int(seed)}",
        "set output digits 5",
        "set output mwc on",
    ]
    if beavers is not None:
        lines.append(f"set beavers {int(beavers)}")
    lines += [
        "@@SECTION_SETTINGS",
        "show rollout",
        "@@SECTION_POSITION",
        f"set gnubgid {position_id}:{match_id}",
        "@@SECTION_HINT0",
        "hint",
        "@@SECTION_ROLLOUT",
        "analyse rollout cube",
        "@@SECTION_RESULT",
        "hint",
        "@@SECTION_END",
        "quit",
    ]
    return "\n".join(lines) + "\n"


# gnubg answers a marker command `@@SECTION_X` with "Unknown keyword `@@SECTION_X'."
_MARK_RE = re.compile(r"Unknown keyword `@@SECTION_([A-Z0-9]+)'\.[ \t]*\n?")
_NUM = r"[-+]?\s*\d+(?:\.\d+)?"


def _split_sections(out: str) -> dict:
    marks = list(_MARK_RE.finditer(out))
    sections = {}
    for k, m in enumerate(marks):
        end = marks[k + 1].start() if k + 1 < len(marks) else len(out)
        sections[m.group(1)] = out[m.end():end]
    return sections


def _num(s: str, pct: bool) -> float:
    v = float(s.replace(" ", ""))
    return round(v / 100.0, 9) if pct else v


_CUBELESS_RE = re.compile(r"^Rollout cubeless (equity|MWC)\s+(" + _NUM + r")(%?)"
                          r"(?:\s*\(Money:\s*(" + _NUM + r")\))?\s*$")
_CUBEFUL_RE = re.compile(r"^\s*([123])\.\s+(No (?:re)?double|(?:Re)?[Dd]ouble, take|(?:Re)?[Dd]ouble, pass)"
                         r"\s+(" + _NUM + r")(%?)")
_ACTION_RE = re.compile(r"^Proper cube action:\s*(.+?)(?:\s+\((\d+(?:\.\d+)?)%\))?\s*$")
_ROW_RE = re.compile(r"^\s*(\d\.\d+) (\d\.\d+) (\d\.\d+) - (\d\.\d+) (\d\.\d+) (\d\.\d+)"
                     r"\s+CL\s+(" + _NUM + r")(%?)\s+CF\s+(" + _NUM + r")(%?)\s*$")
_SE_RE = re.compile(r"^\s*\[(\d\.\d+) (\d\.\d+) (\d\.\d+) - (\d\.\d+) (\d\.\d+) (\d\.\d+)"
                    r"\s+CL\s+(" + _NUM + r")(%?)\s+CF\s+(" + _NUM + r")(%?)\]\s*$")
_GAMES_RE = re.compile(r"^(\d+) games, (.+?) with seed (\d+)(.*)$")


def _label(s: str) -> str:
    s = s.lower().replace("redouble", "double")
    return {"no double": "no_double", "double, take": "double_take", "double, pass": "double_pass"}[s]


def parse_rollout_hint(text: str) -> dict:
    """Parse gnubg's `hint` output after `analyse rollout cube`.

    Money values are equities (per current cube); match values are MWC as fractions.
    """
    lines = [l.rstrip() for l in text.splitlines()]
    stripped = [l.strip() for l in lines]
    if "You cannot double." in stripped and "Cube analysis" not in stripped:
        raise GnubgRolloutError("gnubg: 'You cannot double.' (cube not available to the side on roll)")
    if "Cube analysis" not in stripped:
        raise GnubgRolloutError("no 'Cube analysis' in gnubg's hint output")
    body = lines[stripped.index("Cube analysis") + 1:]
    r: dict = {}

    m = next((m for m in map(_CUBELESS_RE.match, body) if m), None)
    if not m:
        raise GnubgRolloutError("no 'Rollout cubeless ...' line: the rollout did not happen "
                                "(hint shows an evaluation, not a rollout)")
    match = m.group(1) == "MWC"
    r["units"] = "mwc_fraction" if match else "equity_per_cube"
    r["cubeless"] = _num(m.group(2), m.group(3) == "%")
    r["cubeless_money_equity"] = float(m.group(4).replace(" ", "")) if m.group(4) else r["cubeless"]

    vals, order = {}, []
    for l in body:
        m = _CUBEFUL_RE.match(l)
        if m:
            if (m.group(4) == "%") != match:
                raise GnubgRolloutError(f"cubeful line in unexpected units: {l!r}")
            key = _label(m.group(2))
            vals[key] = _num(m.group(3), match)
            order.append(key)
    if sorted(vals) != ["double_pass", "double_take", "no_double"] or len(order) != 3:
        raise GnubgRolloutError(f"could not read the three cubeful values: {order}")
    r.update(vals)
    r["ranking"] = order

    m = next((m for m in map(_ACTION_RE.match, body) if m), None)
    if not m:
        raise GnubgRolloutError("no 'Proper cube action:' line")
    r["action"] = m.group(1)
    r["action_percent"] = float(m.group(2)) if m.group(2) else None

    if "Rollout details:" not in [l.strip() for l in body]:
        raise GnubgRolloutError("no 'Rollout details:'")
    det = body[[l.strip() for l in body].index("Rollout details:") + 1:]
    blocks = []
    for i, l in enumerate(det):
        m = _ROW_RE.match(l)
        if m and i + 1 < len(det):
            s = _SE_RE.match(det[i + 1])
            if not s:
                raise GnubgRolloutError(f"no standard-error line after {l!r}")
            head = det[i - 1].strip().rstrip(":") if i > 0 else ""
            blocks.append({
                "label": head,
                "probs": [float(x) for x in m.groups()[:6]],
                "probs_se": [float(x) for x in s.groups()[:6]],
                "cubeless": _num(m.group(7), m.group(8) == "%"),
                "cubeless_se": _num(s.group(7), s.group(8) == "%"),
                "cubeful": _num(m.group(9), m.group(10) == "%"),
                "cubeful_se": _num(s.group(9), s.group(10) == "%"),
            })
    if len(blocks) != 2:
        raise GnubgRolloutError(f"expected 2 rollout detail blocks, found {len(blocks)}")
    nd, dt = blocks
    tol = 2e-4 if match else 2e-5  # 5 printed digits (percent in match play)
    if abs(nd["cubeful"] - r["no_double"]) > tol or abs(dt["cubeful"] - r["double_take"]) > tol:
        raise GnubgRolloutError(f"rollout details do not match the cubeful values: "
                                f"{nd['cubeful']} / {r['no_double']}, {dt['cubeful']} / {r['double_take']}")
    r["no_double_se"] = nd["cubeful_se"]
    r["double_take_se"] = dt["cubeful_se"]
    r["double_pass_se"] = 0.0  # a fixed value, not rolled out
    r["details"] = {"no_double": nd, "double_take": dt}

    for l in det:
        m = _GAMES_RE.match(l.strip())
        if m:
            r["trials_done"] = int(m.group(1))
            r["rng"] = m.group(2)
            r["seed"] = int(m.group(3))
            r["quasi_random"] = "quasi-random" in m.group(4)
        elif l.startswith("Play:"):
            r["play_settings"] = l[5:].strip()
        elif l.startswith("Cube:"):
            r["cube_settings"] = l[5:].strip()
        elif "rollout" in l.lower() and "variance" in l.lower():
            r["rollout_kind"] = l.strip()
    return r


def _shown_ids(text: str):
    pids = re.findall(r"Position ID: (\S+)", text)
    mids = re.findall(r"Match ID\s*: (\S+)", text)
    return (pids[-1] if pids else None), (mids[-1] if mids else None)


def cube_rollout(position_id: str, match_id: str, trials: int = 1296, seed: int = 1,
                 gnubg: str = GNUBG, timeout: float = 900, threads: int = 1, prune: bool = True,
                 bearoff_truncation: bool = False, beavers: int | None = None,
                 variance_reduction: bool = True) -> dict:
    """Cubeful rollout (0-ply chequer play and cube decisions for both players, variance
    reduction, quasi-random dice, no truncation, Mersenne Twister seeded with *seed*) of the
    cube decision of the side on roll in ``position_id:match_id`` (before the roll).

    Returns a dict with ``no_double``, ``no_double_se``, ``double_take``, ``double_take_se``,
    ``double_pass`` (its SE is 0), ``action`` (gnubg's proper cube action), ``raw`` (the
    printed result), ``units`` ("equity_per_cube" for money, "mwc_fraction" for match
    play: MWC of the side on roll as fractions 0..1), and extras: ``cubeless``,
    ``cubeless_money_equity``, ``details`` (probabilities and SEs of both cube states),
    ``ranking``, ``action_percent``, ``trials_done``, ``seed``, ``play_settings``,
    ``cube_settings``, ``hint_0ply`` (the 0-ply hint before the rollout), ``seconds``
    (wall) and ``cpu_seconds`` (gnubg's user+system time).

    ``variance_reduction`` off = plain outcomes (gnubg's ``set rollout varredn off``).
    ``prune`` = gnubg's "pruning nets" flag (default on, gnubg's 0-ply "expert" setting;
    it only matters for n-ply evaluations with n > 0). ``bearoff_truncation`` off = play every
    game to the end (gnubg's default would stop money rollouts at its exact bear-off
    database). ``beavers``: None keeps gnubg's default (3) -- money only.
    """
    if not os.path.exists(gnubg):
        raise GnubgRolloutError(f"gnubg not found at {gnubg}")
    script = rollout_commands(position_id, match_id, trials, seed, threads, prune,
                              bearoff_truncation, beavers, variance_reduction)
    argv = [gnubg, "-t", "-q"]
    if shutil.which("stdbuf"):
        argv = ["stdbuf", "-o0", "-e0"] + argv  # keep stdout and stderr (the markers) in order
    with tempfile.TemporaryDirectory(prefix="gnubgroll-") as home:
        env = dict(os.environ, HOME=home, LANG="C", LC_ALL="C", LANGUAGE="C")
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(argv, input=script, text=True, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, timeout=timeout, env=env, cwd=home)
        except subprocess.TimeoutExpired as exc:  # subprocess.run has killed gnubg
            out = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            raise GnubgRolloutError(f"gnubg timed out after {timeout}s ({trials} trials)\n{out[-2000:]}") from None
        seconds = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = proc.stdout
    sec = _split_sections(out)
    missing = [s for s in ("SETTINGS", "POSITION", "HINT0", "ROLLOUT", "RESULT", "END") if s not in sec]
    if missing:
        raise GnubgRolloutError(f"gnubg output incomplete (missing {missing}, exit {proc.returncode}):\n{out[-3000:]}")

    pid, mid = _shown_ids(sec["POSITION"])
    if pid != position_id or mid != match_id:
        raise GnubgRolloutError(f"gnubg shows {pid}:{mid}, not {position_id}:{match_id}:\n{sec['POSITION']}")
    if "You cannot double." in sec["HINT0"] and "Cube analysis" not in sec["HINT0"]:
        raise GnubgRolloutError(f"the side on roll cannot double in {position_id}:{match_id} "
                                "(cube owned by the opponent, Crawford game, or dead cube)")
    if "Rollout done" not in sec["ROLLOUT"]:
        raise GnubgRolloutError(f"`analyse rollout cube` did not finish:\n{sec['HINT0']}\n{sec['ROLLOUT']}")

    result_text = sec["RESULT"].strip("\n")
    raw = result_text[result_text.find("Cube analysis"):] if "Cube analysis" in result_text else result_text
    r = parse_rollout_hint(raw)
    if r.get("trials_done") != trials:
        raise GnubgRolloutError(f"gnubg rolled out {r.get('trials_done')} games, not {trials}")
    if r.get("seed") != seed:
        raise GnubgRolloutError(f"gnubg used seed {r.get('seed')}, not {seed}")
    for k in ("play_settings", "cube_settings"):
        if not r.get(k, "").startswith("0-ply cubeful"):
            raise GnubgRolloutError(f"unexpected rollout {k}: {r.get(k)!r}")
    h0 = sec["HINT0"]
    r["hint_0ply"] = h0[h0.find("Cube analysis"):].strip() if "Cube analysis" in h0 else h0.strip()
    r["raw"] = raw
    r["position_id"], r["match_id"], r["trials"] = position_id, match_id, trials
    r["seconds"] = round(seconds, 2)
    r["cpu_seconds"] = round((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), 2)
    r["threads"] = threads
    return r


# --------------------------------------------------------------------------- demo

DEMO = [
    # (name, Position ID, Match ID)
    ("a) opening position, money, cube centred", "4HPwATDgc/ABMA", "cAkAAAAAAAAE"),
    ("b) gammonish middle game (opponent on the bar), money, cube centred", "4O3gAUTYnYMBMA", "cAkAAAAAAAAE"),
    ("c) race 71 vs 78 pips, money, cube centred", "ttuxAAC2uzMAAA", "cAkAAAAAAAAE"),
    ("d) 7-point match, side on roll 4 (3-away), opponent 2 (5-away), cube centred",
     "4HPwATDgc/ABMA", "cAngACAAIAAE"),
]


def _fmt(r: dict) -> str:
    pct = r["units"] == "mwc_fraction"
    f = (lambda v: f"{100 * v:7.3f}%") if pct else (lambda v: f"{v:+.4f}")
    g = (lambda v: f"{100 * v:.3f}%") if pct else (lambda v: f"{v:.4f}")
    return (f"  ND {f(r['no_double'])} (SE {g(r['no_double_se'])})  "
            f"D/T {f(r['double_take'])} (SE {g(r['double_take_se'])})  "
            f"D/P {f(r['double_pass'])}\n"
            f"  action: {r['action']}" + (f" ({r['action_percent']}%)" if r['action_percent'] is not None else "")
            + f"   [{r['trials']} trials, seed {r['seed']}, {r['seconds']:.1f} s wall, {r['cpu_seconds']:.1f} s CPU]")


if __name__ == "__main__":
    import argparse
    import json

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trials", type=int, nargs="+", default=[1296, 324])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json", help="write all results here")
    ap.add_argument("ids", nargs="*", help="PositionID:MatchID pairs (default: the 4 demo positions)")
    a = ap.parse_args()
    cases = [(i, *i.split(":")) for i in a.ids] if a.ids else DEMO
    allres = []
    for n in a.trials:
        for name, pid, mid in cases:
            r = cube_rollout(pid, mid, trials=n, seed=a.seed, threads=a.threads)
            print(f"{name}: {pid}:{mid}  ({r['units']})")
            print(_fmt(r), flush=True)
            allres.append({"name": name, **r})
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(allres, fh, indent=1)
    print("\nraw output of the last rollout:\n" + allres[-1]["raw"])
