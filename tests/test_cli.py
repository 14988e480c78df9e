"""The command line: ``fastgen bench`` (the main job), ``fastgen rollout`` and their arguments."""

import argparse
import importlib
import inspect
import json
import os
import subprocess
import sys
import tempfile
import re

import pytest

import fastgen
from fastgen import bearoff
from fastgen.cli.main import BROKEN_PIPE_STATUS, build_parser, main
from fastgen.cli.output import finite_or_none
from fastgen._util import install_hint

from _child import child_env, run_python

# The module (fastgen.sim.rollout.front is also the name of the function in the package namespace).
rollout_module = importlib.import_module("fastgen.sim.rollout.front")
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
        r"generator needs gnubg-nn, the peers extra: " + re.escape(f"{install_hint('peers')} && fastgen bench"),
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
    ["rollout", "--policy", "nosuch"],  # no such policy spec
    ["rollout", "--policy", "gnubg:9"],
    ["rollout", "--policy", "missing.npz"],
    ["rollout-plays", "--position", "4HPwATDgc/ABMA", "--dice", "31", "--evaluator", "random"],  # a policy
    ["rollout-plays", "--position", "4HPwATDgc/ABMA", "--dice", "31", "--evaluator", "nobody"],
    ["serve-external", "--policy", "nobody"],
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


def test_rollout_and_rollout_plays_take_the_baseline(capsys, tmp_path):
    # One grammar: the shipped network is a policy for rollout, an evaluator for rollout-plays.
    assert main(["rollout", "--games", "8", "--policy", "baseline", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    want = rollout_module.rollout(games=8, policy="baseline").summary()
    assert data["policy"] == "baseline" and data["win"] == list(want.win)
    argv = ["rollout-plays", "--position", "4HPwATDgc/ABMA", "--dice", "31", "--plays", "2", "--trials", "36", "--json"]
    assert main(argv + ["--evaluator", "baseline"]) == 0
    table = json.loads(capsys.readouterr().out)
    api = fastgen.rollout_plays(fastgen.STARTING_BOARD, (3, 1), "baseline", plays=2, trials=36)
    assert table["evaluator"] == "baseline" and [r["equity"] for r in table["rows"]] == [r.equity for r in api.rows]
    net = fastgen.players.evaluators.random_network(hidden=4, seed=1).compiled()
    net.save(tmp_path / "net.npz")
    assert main(argv + ["--evaluator", str(tmp_path / "net.npz")]) == 0
    assert json.loads(capsys.readouterr().out)["evaluator"] == "net.npz"
    assert main(["rollout", "--games", "4", "--policy", str(tmp_path / "net.npz")]) == 0


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


# --------------------------------------------------------------------------- a closed pipe


def _small_pipe() -> tuple[int, int]:
    """A pipe that holds 4 KiB (Linux's F_SETPIPE_SZ), so a command writing more blocks
    until its reader reads on or goes away."""
    fcntl = pytest.importorskip("fcntl", reason="needs fcntl (a Unix system) to size a pipe")
    if not hasattr(fcntl, "F_SETPIPE_SZ"):
        pytest.skip("needs Linux's F_SETPIPE_SZ to make a pipe that a command's output fills")
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 4096)
    return read_end, write_end


def test_a_reader_that_stops_after_the_first_line_ends_the_command_quietly():
    # ``fastgen rollout-plays ... --json | head -1``: the 16 rows are 12 KB, three times what
    # the pipe holds, so the command is still writing when its reader closes the pipe.
    read_end, write_end = _small_pipe()
    argv = ["-m", "fastgen", "rollout-plays", "--position", "4HPwATDgc/ABMA", "--dice", "31", "--plays", "all",
            "--evaluator", "network:1", "--trials", "1", "--truncate", "1", "--json"]
    proc = subprocess.Popen([sys.executable, *argv], stdout=write_end, stderr=subprocess.PIPE,
                            cwd=tempfile.gettempdir(), env=child_env())
    os.close(write_end)
    line = b""
    while not line.endswith(b"\n"):  # one byte at a time: nothing read past the first line
        byte = os.read(read_end, 1)
        if not byte:
            break
        line += byte
    os.close(read_end)
    err = proc.communicate(timeout=300)[1].decode()
    assert line == b"{\n"
    assert "Traceback" not in err and "Error" not in err and err == "", err
    assert proc.returncode == BROKEN_PIPE_STATUS == 141


def _bearoff_file(tmp_path) -> str:
    path = str(tmp_path / "os3.bd")
    bearoff.write_gnubg(path, bearoff.build_one_sided(3))
    return path


CLOSED_PIPE_COMMANDS = [
    ["--version"],
    ["-h"],
    ["bench", "-h"],
    ["rollout", "--games", "10"],
    ["rollout", "--games", "10", "--json"],
    ["perft", "--depth", "1"],
    ["bearoff", "build", "-o", "2", "-f", "{tmp}/os2.bd"],
    ["bearoff", "dump", "{bd}", "5"],
    ["bearoff", "eval", "AwAAKAAAAAAAAA", "--database", "{bd}", "--json"],
    ["rollout-plays", "--position", "4HPwATDgc/ABMA", "--dice", "31", "--evaluator", "network:1",
     "--trials", "1", "--truncate", "1", "--plays", "1"],
    ["duel", "pubeval", "random", "--games", "2"],
    ["serve-external", "-h"],
    ["train", "td", "--out", "{tmp}/t.npz", "--games", "20", "--hidden", "4", "--eval-games", "0", "--sync", "10",
     "--json"],
]


@pytest.mark.parametrize("argv", CLOSED_PIPE_COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_every_subcommand_ends_quietly_on_a_closed_pipe(argv, tmp_path):
    # The reader has gone before the command writes anything: its first write fails.
    argv = [a.format(tmp=tmp_path, bd=_bearoff_file(tmp_path)) for a in argv]
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run([sys.executable, "-m", "fastgen", *argv], stdout=write_end, stderr=subprocess.PIPE,
                              cwd=tempfile.gettempdir(), env=child_env(), timeout=300)
    finally:
        os.close(write_end)
    err = proc.stderr.decode()
    # argparse ignores a failed write of its help or version (status 0) when stdout is
    # unbuffered; when buffered, the flush at the end fails and stops the command.
    expected = {0, BROKEN_PIPE_STATUS} if {"-h", "--version"} & set(argv) else {BROKEN_PIPE_STATUS}
    assert err == "" and proc.returncode in expected, (proc.returncode, err)


# --------------------------------------------------------------------------- JSON output


def _strict_json(text: str):
    """*text* parsed as strict JSON: NaN and Infinity, which JSON does not have, fail."""
    def refuse(constant):
        raise AssertionError(f"{constant} in the JSON output")

    return json.loads(text, parse_constant=refuse)


def test_json_output_is_strict_json(capsys):
    # A single game has no interval of its points per game: null, not Infinity.
    assert main(["rollout", "--games", "1", "--json"]) == 0
    data = _strict_json(capsys.readouterr().out)
    assert data["points_per_game_interval"] == [None, None] and data["games"] == 1
    assert finite_or_none({"a": (1.5, float("nan")), "b": [float("-inf")], "c": "x", "d": 2}) == {
        "a": [1.5, None], "b": [None], "c": "x", "d": 2}


# --------------------------------------------------------------------------- lean start


def test_a_subcommand_imports_only_its_own_modules(tmp_path):
    # A fresh interpreter: fastgen bearoff build loads no rollout, duel, evaluator or
    # benchmark code, and none of the other subcommands' modules.
    code = (
        "import sys; from fastgen.cli.main import main; "
        f"assert main(['bearoff', 'build', '-o', '2', '-f', {str(tmp_path / 'os2.bd')!r}]) == 0; "
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('fastgen'))))"
    )
    done = run_python("-c", code, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = set(done.stdout.splitlines()[-1].split())
    assert "fastgen.bearoff.build" in loaded and "fastgen.cli.bearoff" in loaded
    unwanted = {m for m in loaded if m.startswith(("fastgen.sim", "fastgen.players.evaluators", "fastgen.players.engines",
                                                   "fastgen.players.policies", "fastgen.games.game", "fastgen.games.match",
                                                   "fastgen.search"))}
    others = {m for m in loaded if m.startswith("fastgen.cli.")} - {
        "fastgen.cli.main", "fastgen.cli.args", "fastgen.cli.bearoff", "fastgen.cli.output"}
    assert not unwanted and not others, (unwanted, others)


def test_the_parser_of_one_subcommand_is_the_full_parsers_part():
    # main() registers only the subcommand named on the command line: its parser and help
    # are the ones of the parser that registers them all.
    full = _subcommands()
    for name in full:
        alone = next(a for a in build_parser(name)._actions if isinstance(a, argparse._SubParsersAction)).choices
        assert list(alone) == [name]
        assert alone[name].format_help() == full[name].format_help()
    assert list(next(a for a in build_parser("nope")._actions
                      if isinstance(a, argparse._SubParsersAction)).choices) == list(full)
