"""``fastgen train td`` and ``fastgen train plot`` on the command line."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

from _child import child_env
from fastgen.cli.main import main
from fastgen.nets import Network
from fastgen.train import TDConfig, td
from fastgen.train.checkpoint import read_checkpoint

SMALL = ["--games", "1200", "--hidden", "16", "--sync", "200", "--eval-every", "600", "--eval-games", "100", "--seed", "2"]


def test_td_writes_checkpoint_and_curve_like_the_api(tmp_path, capsys):
    out = tmp_path / "bot.npz"
    assert main(["train", "td", "--out", str(out), *SMALL, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["games"] == 1200 and result["log"] == str(tmp_path / "bot.curve.json")
    curve = json.loads((tmp_path / "bot.curve.json").read_text())
    assert [p["games"] for p in curve] == [600, 1200] and "previous" in curve[1]
    api = td(TDConfig(games=1200, hidden=16, sync=200, eval_every=600, eval_games=100, seed=2))
    net = Network.load(out)
    for a, b in zip(net.weights + net.biases, api.network.weights + api.network.biases):
        np.testing.assert_array_equal(a, b)
    assert net.inputs == ("tesauro198", "contact")
    assert [p["pubeval"] for p in curve] == [p["pubeval"] for p in api.curve]


def test_resume_goes_on_to_more_games(tmp_path, capsys):
    out = tmp_path / "bot.npz"
    assert main(["train", "td", "--out", str(out), *SMALL, "--no-contact"]) == 0
    assert main(["train", "td", "--out", str(out), "--resume", "--games", "1800"]) == 0
    text = capsys.readouterr()
    assert "trained 1,800 games" in text.out and "1,800 games" in text.err  # the point line
    ck = read_checkpoint(out)
    assert ck.games == 1800 and ck.config["games"] == 1800 and ck.network.sizes == (198, 16, 5)
    assert [p["games"] for p in json.loads((tmp_path / "bot.curve.json").read_text())] == [600, 1200, 1800]


def test_bad_arguments_and_checkpoints_exit_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["train", "td", "--out", str(tmp_path / "x.npz"), "--lam", "1.5"])
    assert e.value.code == 2
    assert main(["train", "td", "--out", str(tmp_path / "missing.npz"), "--resume"]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["train", "td", "--out", str(tmp_path / "x.npz"), "--eval-games", "3"]) == 2
    assert "eval_games must be even" in capsys.readouterr().err
    (tmp_path / "junk.json").write_text("{}")
    assert main(["train", "plot", str(tmp_path / "junk.json"), "--out", str(tmp_path / "c.png")]) == 2
    assert "not a training curve" in capsys.readouterr().err


def test_plot_draws_the_curve(tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="fastgen train plot needs matplotlib (the plot extra)")
    out = tmp_path / "bot.npz"
    assert main(["train", "td", "--out", str(out), *SMALL]) == 0
    for source in (tmp_path / "bot.curve.json", out):
        assert main(["train", "plot", str(source), "--out", str(tmp_path / "c.png")]) == 0
        assert "2 points drawn" in capsys.readouterr().out
        assert (tmp_path / "c.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_ctrl_c_stops_promptly_and_keeps_the_last_checkpoint(tmp_path):
    """SIGINT during a long run: exit status 130 within seconds, the checkpoint that the
    first curve point wrote still readable, and a resume from it goes on."""
    out = tmp_path / "bot.npz"
    # The fastgen under test first on the path, run from a neutral folder ("python -m" puts
    # the working directory first, and a repository root there has no compiled core in CI).
    proc = subprocess.Popen(
        [sys.executable, "-m", "fastgen", "train", "td", "--out", str(out), "--games", "10000000", "--hidden", "16",
         "--eval-every", "2000", "--eval-games", "0", "--no-progress"],
        env=child_env(), cwd=tempfile.gettempdir(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 120
        while not out.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert out.exists(), proc.stderr.read() if proc.poll() is not None else "no checkpoint in 120 s"
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        t0 = time.monotonic()
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 130 and "interrupted" in err
        assert time.monotonic() - t0 < 10
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    ck = read_checkpoint(out)
    assert ck.games > 0 and ck.games % 2000 == 0


def test_supervise_refines_and_reports(tmp_path, capsys):
    start = tmp_path / "start.npz"
    td(TDConfig(games=400, hidden=16, sync=100, eval_every=400, eval_games=0, seed=1, contact=False)).network.save(start)
    args = ["train", "supervise", str(start), "--data", str(tmp_path / "d"), "--out", str(tmp_path / "r.npz"),
            "--positions", "30", "--trials", "6", "--truncate", "2", "--epochs", "2", "--eval-games", "100", "--json"]
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["trained"] + result["held_out"] == 30 and "ci95" in result["vs_start"]
    assert Network.load(tmp_path / "r.npz").sizes == (198, 16, 5)
    assert sorted(p.name for p in (tmp_path / "d").iterdir()) == ["positions.npz", "settings.json", "targets-00000.npz"]
    assert main(["train", "supervise", str(tmp_path / "missing.npz"), "--data", str(tmp_path / "d"),
                 "--out", str(tmp_path / "r.npz")]) == 2
    assert "missing.npz" in capsys.readouterr().err


def test_supervise_learns_from_a_teacher_and_duels_a_referee(tmp_path, capsys):
    """--teacher rolls the positions out with that evaluator (the stored targets are its
    rollouts, not the network's), the data set records it (another teacher is refused),
    and --referee names the second duel's opponent."""
    from fastgen.sim.decide.front import rollout_position
    from fastgen.train.refine import SuperviseConfig, rollout_targets

    start = tmp_path / "start.npz"
    net = td(TDConfig(games=400, hidden=16, sync=100, eval_every=400, eval_games=0, seed=1, contact=False)).network
    net.save(start)
    args = ["train", "supervise", str(start), "--data", str(tmp_path / "d"), "--out", str(tmp_path / "r.npz"),
            "--positions", "20", "--trials", "4", "--truncate", "2", "--epochs", "1", "--eval-games", "40",
            "--teacher", "baseline", "--referee", "baseline", "--json"]
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["teacher"] == "baseline" and result["referee"] == "baseline" and "ci95" in result["vs_referee"]
    stored = np.load(tmp_path / "d" / "targets-00000.npz")["probabilities"]
    boards = np.load(tmp_path / "d" / "positions.npz")["boards"]
    config = SuperviseConfig(positions=20, trials=4, truncate=2, epochs=1, teacher="baseline")
    assert np.array_equal(stored, rollout_targets(net, boards, config))
    own = rollout_position(boards[0], net, trials=4, seed=0, truncate=2).rows[0].probabilities
    assert not np.allclose(stored[0], own)   # the network's own rollout differs
    again = args[:]
    again[again.index("--teacher") + 1] = "network:3"
    assert main(again) == 2 and "other settings" in capsys.readouterr().err   # the data set is the baseline's
