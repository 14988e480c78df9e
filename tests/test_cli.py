"""The command line: ``fastgen bench`` (the main job), ``fastgen rollout`` and their arguments."""

import argparse
import importlib
import inspect
import json
import re

import pytest

import fastgen
from fastgen.cli.main import build_parser, main

from _child import run_python

# The module (fastgen.sim.rollout is also the name of the function in the package namespace).
rollout_module = importlib.import_module("fastgen.sim.rollout")
bench_module = importlib.import_module("fastgen.cli.bench")


@pytest.mark.parametrize("workload", ["vectors", "random"])
def test_bench_json_reports_every_generator(capsys, workload):
    assert main(["bench", "--repeat", "1", "--oracle-sample", "21", "--json", "--workload", workload]) == 0
    data = json.loads(capsys.readouterr().out)
    names = [t["name"] for t in data["timings"]]
    assert {"plays_batch", "plays_batch threads=2", "count_plays_batch", "legal_plays loop"} <= set(names)
    assert data["workload"]["name"] == workload
    assert data["workload"]["positions"] == (42_000 if workload == "vectors" else 20_000)
    if workload == "vectors":
        assert data["workload"]["plays"] == 218_356 + 185_957 + 140_720 + 122_570, (
            "the vector workload's play total differs from the published one: "
            "tests/test_vectors.py names the positions and rolls"
        )
    for t in data["timings"]:
        pp = t["per_position"]
        assert 0 < pp["min"] <= pp["median"] <= pp["max"]
    assert data["speedup_vs"]["reference oracle (sample)"]["plays_batch"] > 1
    assert data["environment"]["fastgen"]


def test_bench_warms_up_before_timing():
    """Each row runs once untimed before its timed runs (as pytest-benchmark warms up), so
    a slow first run does not count in the median."""
    calls = []
    seconds = bench_module._time(lambda: calls.append(1), 3)
    assert len(calls) == 4 and len(seconds) == 3
    calls.clear()
    assert len(bench_module._time(lambda: calls.append(1), 2, warmup=0)) == 2 and len(calls) == 2


QUICK_BENCH = ["bench", "--repeat", "1", "--oracle-sample", "21"]
MEDIAN = r"\d+\.\d{3} us"


def test_bench_text_output(capsys):
    assert main(QUICK_BENCH) == 0
    out = capsys.readouterr().out
    assert "positions/s" in out and "speed-up vs reference oracle" in out


def _speedup(lines: list[str], base: str, name: str) -> str:
    """The figure of row *name* in the table "speed-up vs *base*" of bench's text output."""
    start = lines.index(f"speed-up vs {base} (median time ratio, higher is faster):")
    row = next(line for line in lines[start + 1 :] if line.split()[0] == name)
    return row.split()[-1]


def test_bench_headline_gives_the_ratio_to_gnubg(capsys):
    pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed: pip install '.[peers]'")
    assert main(QUICK_BENCH) == 0
    lines = capsys.readouterr().out.splitlines()
    # The headline comes first and again last, with the ratios of the gnubg table.
    assert lines[0] == lines[-1]
    found = re.fullmatch(
        rf"headline: plays_batch {MEDIAN} per position, (\d+\.\d)x GNU Backgammon's generator "
        rf"\(gnubg_nn\.moves loop\); count_plays_batch {MEDIAN}, (\d+\.\d)x",
        lines[0],
    )
    assert found, lines[0]
    base = "gnubg_nn.moves loop"
    assert found.group(1) + "x" == _speedup(lines, base, "plays_batch")
    assert found.group(2) + "x" == _speedup(lines, base, "count_plays_batch")


def test_bench_without_gnubg_nn_names_the_peers_extra():
    # gnubg-nn made unimportable in a child (None in sys.modules: "import gnubg_nn" fails).
    code = (
        "import sys; sys.modules['gnubg_nn'] = None; from fastgen.cli.main import main; "
        f"sys.exit(main({QUICK_BENCH!r}))"
    )
    done = run_python("-c", code, timeout=600)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == lines[-1]
    assert re.fullmatch(
        rf"headline: plays_batch {MEDIAN} per position; count_plays_batch {MEDIAN}; the ratio to GNU Backgammon's "
        r"generator needs gnubg-nn, the peers extra: pip install \"\.\[peers\]\" && fastgen bench",
        lines[0],
    ), lines[0]
    assert "gnubg_nn.moves" not in done.stdout and "speed-up vs reference oracle" in done.stdout


@pytest.mark.parametrize("argv", [["bench", "--repeat", "0"], ["bench", "--workload", "nope"], ["frobnicate"], []])
def test_bad_arguments_exit_with_usage(argv, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2


def _no_work(*args, **kwargs):
    raise AssertionError("work started although an argument is invalid")


BAD_ARGUMENTS = [
    ["bench", "--threads", "0"],
    ["bench", "--threads", "100000"],
    ["bench", "--oracle-sample", "0"],
    ["bench", "--repeat", "-3"],
    ["bench", "--repeat", "\uff15"],  # a fullwidth 5 is not a number here
    ["bench", "--repeat", "9" * 5000],  # past int()'s digit limit: still a usage error
    ["bench", "--workload", "nope"],
    ["rollout", "--position", "AAAAAAAAAAAAAA"],  # decodes, but both sides have borne off
    ["rollout", "--position", "4HPwATDgc/ABM!"],
    ["rollout", "--position", "//////////////"],
    ["rollout", "--seed", "-1"],
    ["rollout", "--seed", str(2**64)],
    ["rollout", "--games", "0"],
    ["rollout", "--games", "1.5"],
    ["rollout", "--threads", "0"],
    ["rollout", "--batch-size", "x"],
    ["rollout", "--policy", "gnubg"],
    ["perft", "--depth", "0"],
    ["perft", "--depth", "2", "--position", "AAAAAAAAAAAAAA"],
]


@pytest.mark.parametrize("argv", BAD_ARGUMENTS, ids=" ".join)
def test_every_argument_is_checked_before_any_work(argv, capsys, monkeypatch):
    """A bad value is a one-line usage error (exit 2) from argparse, and no work starts."""
    monkeypatch.setattr(bench_module, "run_benchmarks", _no_work)
    monkeypatch.setattr(importlib.import_module("fastgen.cli.rollout"), "rollout", _no_work)
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1 and errors[0].startswith(f"fastgen {argv[0]}: error: argument "), err
    assert argv[-2] in errors[0] and "Traceback" not in err  # the option of the bad value


def _subcommands():
    parser = build_parser()
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


@pytest.mark.parametrize("command", sorted(_subcommands()))
def test_help_shows_every_default(command):
    """Every option with a real default shows it, once; "not given" defaults are not shown."""
    sub = _subcommands()[command]
    text = " ".join(sub.format_help().split())  # undo line wrapping
    formatter = sub._get_formatter()
    for action in sub._actions:
        if not action.option_strings or action.default is argparse.SUPPRESS:
            continue
        shown = formatter._get_help_string(action) % {"default": action.default}
        assert shown.count("(default") <= 1, shown
        if action.default not in (None, False):
            assert f"(default: {action.default})" in text or "(default" in shown, action.option_strings
    assert "(default: None)" not in text and "(default: False)" not in text


def test_cli_and_rollout_share_the_default_seed(capsys):
    default = inspect.signature(rollout_module.rollout).parameters["seed"].default
    assert build_parser().parse_args(["rollout"]).seed == default
    assert main(["rollout", "--games", "40", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    expected = rollout_module.rollout(games=40).summary()
    assert data["seed"] == default and data["win"] == list(expected.win)
    assert data["gammon"] == list(expected.gammon)


def test_rollout_text_says_what_its_numbers_are(capsys):
    assert main(["rollout", "--games", "30", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert "95% Wilson score intervals" in out
    assert "gammon rates include backgammons" in out
    assert "side 0 is the side that moves first" in out
    assert main(["rollout", "--games", "30", "--json"]) == 0
    legend = json.loads(capsys.readouterr().out)["legend"]
    assert "Wilson" in legend["intervals"] and "backgammons" in legend["gammon"]


def test_rollout_from_a_position_id(capsys):
    assert main(["rollout", "--games", "20", "--position", "4HPwATDgc/ABMA", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 20 and sum(data["win"]) == pytest.approx(1.0)


def test_an_error_found_while_playing_is_one_line(capsys, monkeypatch):
    def dead(**kwargs):
        raise ValueError("no game can end from this position")

    monkeypatch.setattr(importlib.import_module("fastgen.cli.rollout"), "rollout", dead)
    assert main(["rollout", "--games", "5"]) == 1
    err = capsys.readouterr().err
    assert err.strip() == "fastgen rollout: error: no game can end from this position"


def test_ctrl_c_exits_with_130(capsys, monkeypatch):
    def interrupted(**kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(importlib.import_module("fastgen.cli.rollout"), "rollout", interrupted)
    assert main(["rollout", "--games", "5"]) == 130
    assert capsys.readouterr().err.strip() == "fastgen: interrupted"


def test_python_dash_m_fastgen():
    """``python -m fastgen`` is the same command line, usage errors included."""
    run = ["-m", "fastgen"]
    version = run_python(*run, "--version", timeout=60)
    assert version.returncode == 0 and version.stdout.strip() == f"fastgen {fastgen.__version__}"
    bad = run_python(*run, "bench", "--threads", "0", timeout=60)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.splitlines()[-1] == (
        "fastgen bench: error: argument --threads: expected an integer from 1 to 1024, got '0'"
    )
    ok = run_python(*run, "rollout", "--games", "10", "--json", timeout=60)
    assert ok.returncode == 0 and json.loads(ok.stdout)["games"] == 10
