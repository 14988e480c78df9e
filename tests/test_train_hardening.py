"""Damaged, tampered or impossible training files, and command lines that contradict
themselves: each is refused before any work with a fastgen error naming the file (and
the field at fault); on the command line a one-line error and exit status 2, never a
traceback, a crash, a NaN or a half-written file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from _child import run_python
from fastgen.cli.main import main
from fastgen.errors import CheckpointError, InvalidArgumentError
from fastgen.nets import Network
from fastgen.train import SuperviseConfig, TDConfig, resume_td, supervise, td
from fastgen.train import refine
from fastgen.train.checkpoint import check_curve, read_checkpoint

#: A tiny run: a few games, no duels (the curve points are still made).
TINY = ["--games", "40", "--hidden", "4", "--sync", "20", "--eval-every", "20", "--eval-games", "0", "--seed", "1"]
TINY_CONFIG = TDConfig(games=40, hidden=4, sync=20, eval_every=20, eval_games=0, seed=1)
#: A tiny data set: 10 positions, one trial each cut after one ply, two shards.
DATA = SuperviseConfig(positions=10, trials=1, truncate=1, epochs=1, shard=5, seed=3)


def _net() -> Network:
    rng = np.random.default_rng(0)
    return Network([rng.normal(0, 0.1, (198, 8)), rng.normal(0, 0.1, (8, 5))], [np.zeros(8), np.zeros(5)])


def _one_line_error(err: str, *names: str) -> None:
    """*err* is one line, no traceback, naming each of *names*."""
    assert "Traceback" not in err
    assert err.strip() and "\n" not in err.strip(), err
    for name in names:
        assert name in err, (name, err)


def _checkpoint(tmp_path: Path) -> Path:
    path = tmp_path / "bot.npz"
    td(TINY_CONFIG, checkpoint=path)
    return path


def _tamper(path: Path, text: str) -> None:
    """Replace the checkpoint's training state by *text* (the rest kept)."""
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["train_state"] = np.array(text)
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def _state(path: Path) -> dict:
    with np.load(path) as z:
        return json.loads(str(z["train_state"]))


# ----------------------------------------------------------------------------- (1) impossible boards


def test_impossible_boards_in_a_data_set_exit_2_in_a_child_not_a_segfault(tmp_path):
    """Boards of 9 checkers on every point once crashed the compiled learner (SIGSEGV);
    run in a child process so that a crash fails this test instead of killing pytest."""
    net_path = tmp_path / "net.npz"
    _net().save(net_path)
    net = Network.load(net_path)
    config = SuperviseConfig(positions=20, trials=1, truncate=1, epochs=1)
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "settings.json").write_text(json.dumps(refine._settings(net, config)))
    np.savez(folder / "positions.npz", boards=np.full((20, 2, 25), 9, np.int8), close=np.zeros(20, bool))
    targets = np.full((20, 5), 0.5, np.float32)
    targets[:, 2] = targets[:, 4] = 0.1
    np.savez(folder / "targets-00000.npz", probabilities=targets)
    done = run_python("-m", "fastgen", "train", "supervise", str(net_path), "--data", str(folder),
                      "--out", str(tmp_path / "r.npz"), "--positions", "20", "--trials", "1", "--truncate", "1",
                      "--epochs", "1", "--eval-games", "0", "--no-progress", timeout=300)
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    _one_line_error(done.stderr, "fastgen train supervise: error:", "positions.npz", "index 0", "not a legal position")
    assert not (tmp_path / "r.npz").exists()


def test_impossible_boards_are_refused_by_the_reader(tmp_path):
    np.savez(tmp_path / "positions.npz", boards=np.full((10, 2, 25), 9, np.int8), close=np.zeros(10, bool))
    with pytest.raises(CheckpointError, match=r"positions\.npz.*index 0") as e:
        refine._read_positions(str(tmp_path), DATA)
    assert "\n" not in str(e.value)
    boards = np.zeros((10, 2, 25), np.int8)
    boards[:, :, 5] = 1
    boards[7, 0, 3] = 16
    np.savez(tmp_path / "positions.npz", boards=boards, close=np.zeros(10, bool))
    with pytest.raises(CheckpointError, match="index 7"):
        refine._read_positions(str(tmp_path), DATA)


# ----------------------------------------------------------------------------- (4) tampered training state


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


TAMPERED = {
    "a_list": lambda s: json.dumps([s]),
    "no_config": lambda s: json.dumps({k: v for k, v in s.items() if k != "config"}),
    "no_games": lambda s: json.dumps({k: v for k, v in s.items() if k != "games"}),
    "no_curve": lambda s: json.dumps({k: v for k, v in s.items() if k != "curve"}),
    "games_a_string": lambda s: json.dumps({**s, "games": "forty"}),
    "games_1e400": lambda s: json.dumps({**s, "games": 12345}).replace("12345", "1e400"),
    "deeply_nested": lambda s: json.dumps({**s, "config": None}).replace("null", _deep(100_000)),
    "config_unknown_key": lambda s: json.dumps({**s, "config": {**s["config"], "speed": 3}}),
    "config_wrong_type": lambda s: json.dumps({**s, "config": {**s["config"], "hidden": "4"}}),
    "config_invalid": lambda s: json.dumps({**s, "config": {**s["config"], "lam": 7.0}}),
    "config_nested_value": lambda s: json.dumps({**s, "config": {**s["config"], "seed": None}}).replace(
        "null", _deep(900)),
    "curve_not_dicts": lambda s: json.dumps({**s, "curve": [1, 2]}),
    "curve_pubeval_not_a_dict": lambda s: json.dumps({**s, "curve": [{"games": 20, "pubeval": 5}]}),
    "seconds_nan": lambda s: json.dumps({**s, "seconds": float("nan")}),
    "version_true": lambda s: json.dumps({**s, "version": True}),
}
#: What each message names: the field at fault.
FIELDS = {"a_list": "not a JSON object", "no_config": "'config'", "no_games": "'games'", "no_curve": "'curve'",
          "games_a_string": "'games'", "games_1e400": "'games'", "deeply_nested": "too deeply",
          "config_unknown_key": "'speed'", "config_wrong_type": "'hidden'", "config_invalid": "lam",
          "config_nested_value": "'seed'", "curve_not_dicts": "point 0", "curve_pubeval_not_a_dict": "'pubeval'",
          "seconds_nan": "'seconds'", "version_true": "version True"}


@pytest.mark.parametrize("variant", sorted(TAMPERED))
def test_a_tampered_training_state_is_a_checkpoint_error_naming_the_field(tmp_path, variant):
    path = _checkpoint(tmp_path)
    _tamper(path, TAMPERED[variant](_state(path)))
    for read in (lambda: read_checkpoint(path), lambda: resume_td(path)):
        with pytest.raises(CheckpointError) as e:
            read()
        assert "bot.npz" in str(e.value) and FIELDS[variant] in str(e.value), str(e.value)
        assert "\n" not in str(e.value)


def test_a_tampered_checkpoint_on_the_command_line_exits_2(tmp_path, capsys):
    path = _checkpoint(tmp_path)
    _tamper(path, TAMPERED["games_1e400"](_state(path)))
    assert main(["train", "td", "--out", str(path), "--resume"]) == 2
    _one_line_error(capsys.readouterr().err, "fastgen train td: error:", "bot.npz", "'games'")


def test_a_damaged_previous_network_is_named(tmp_path):
    path = _checkpoint(tmp_path)
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files if k != "frozen_b1"}
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    with pytest.raises(CheckpointError, match="previous point's network is not whole"):
        read_checkpoint(path)


# ----------------------------------------------------------------------------- (5) --out without .npz


def test_out_without_npz_is_reported_and_resumed_as_the_file_written(tmp_path, capsys):
    out = tmp_path / "bot"
    assert main(["train", "td", "--out", str(out), *TINY, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["checkpoint"] == str(tmp_path / "bot.npz") and result["log"] == str(tmp_path / "bot.curve.json")
    assert (tmp_path / "bot.npz").is_file() and not out.exists()
    assert main(["train", "td", "--out", str(out), "--resume", "--games", "60"]) == 0
    text = capsys.readouterr()
    assert f"checkpoint {tmp_path / 'bot.npz'}" in text.out
    assert read_checkpoint(tmp_path / "bot.npz").games == 60
    assert resume_td(out, games=80).games == 80  # the API finds bot.npz too


# ----------------------------------------------------------------------------- (6) destinations


@pytest.mark.parametrize("where", ["out", "log"])
def test_td_to_a_missing_folder_is_refused_before_the_work(tmp_path, capsys, where):
    missing = tmp_path / "nowhere"
    out = missing / "bot.npz" if where == "out" else tmp_path / "bot.npz"
    extra = ["--log", str(missing / "c.json")] if where == "log" else []
    assert main(["train", "td", "--out", str(out), *TINY, *extra]) == 2
    _one_line_error(capsys.readouterr().err, "fastgen train td: error:", "nowhere", "does not exist")
    assert not (tmp_path / "bot.npz").exists()


def test_td_api_refuses_a_missing_folder_before_the_work(tmp_path):
    with pytest.raises(InvalidArgumentError, match="nowhere"):
        td(TDConfig(games=10**9, hidden=4, eval_games=0), checkpoint=tmp_path / "nowhere" / "bot.npz")


def test_supervise_to_a_missing_folder_is_refused_before_the_work(tmp_path, capsys):
    _net().save(tmp_path / "net.npz")
    args = ["train", "supervise", str(tmp_path / "net.npz"), "--positions", "10", "--trials", "1", "--truncate", "1",
            "--epochs", "1", "--eval-games", "0"]
    assert main([*args, "--data", str(tmp_path / "d"), "--out", str(tmp_path / "nowhere" / "r.npz")]) == 2
    _one_line_error(capsys.readouterr().err, "fastgen train supervise: error:", "nowhere", "does not exist")
    assert not (tmp_path / "d").exists()
    (tmp_path / "file").write_text("")
    assert main([*args, "--data", str(tmp_path / "file" / "d"), "--out", str(tmp_path / "r.npz")]) == 2
    _one_line_error(capsys.readouterr().err, "fastgen train supervise: error:", "file")
    assert main([*args, "--data", str(tmp_path / "file"), "--out", str(tmp_path / "r.npz")]) == 2
    _one_line_error(capsys.readouterr().err, "is not a folder")
    assert not (tmp_path / "r.npz").exists()


# ----------------------------------------------------------------------------- (7) damaged data sets


@pytest.fixture
def data_set(tmp_path):
    """A finished tiny data set (two shards) and its network."""
    net = _net()
    supervise(net, tmp_path / "d", DATA)
    return net, tmp_path / "d"


def _write_targets(path: Path, values: np.ndarray) -> None:
    with open(path, "wb") as f:
        np.savez(f, probabilities=values)


@pytest.mark.parametrize("damage, named", [
    ("truncated_positions", "positions.npz"),
    ("no_close", "'close'"),
    ("boards_of_another_shape", "shape"),
    ("close_not_bool", "close flags"),
    ("missing_positions", "positions.npz"),
    ("settings_not_json", "settings.json"),
    ("settings_deeply_nested", "settings.json"),
])
def test_damaged_positions_and_settings_are_named(data_set, damage, named):
    net, folder = data_set
    positions = folder / "positions.npz"
    with np.load(positions) as z:
        boards, close = z["boards"], z["close"]
    if damage == "truncated_positions":
        positions.write_bytes(positions.read_bytes()[:100])
    elif damage == "no_close":
        np.savez(positions, boards=boards)
    elif damage == "boards_of_another_shape":
        np.savez(positions, boards=boards[:, :, :24], close=close)
    elif damage == "close_not_bool":
        np.savez(positions, boards=boards, close=close.astype(np.float64))
    elif damage == "missing_positions":
        positions.unlink()
    elif damage == "settings_not_json":
        (folder / "settings.json").write_text("{not json")
    else:
        (folder / "settings.json").write_text(_deep(100_000))
    with pytest.raises(CheckpointError) as e:
        supervise(net, folder, DATA)
    assert named in str(e.value) and "\n" not in str(e.value), str(e.value)


@pytest.mark.parametrize("values, named", [
    (np.full((5, 5), 1e6, np.float32), "row 0"),
    (np.full((5, 5), np.nan, np.float32), "row 0"),
    (np.full((4, 5), 0.5, np.float32), "shape (4, 5)"),
    (np.full((5, 5), 1, np.int64), "int64"),
])
def test_damaged_rollout_shards_are_named_with_the_remedy(data_set, values, named):
    net, folder = data_set
    shard = folder / "targets-00001.npz"
    _write_targets(shard, values)
    (folder / "targets-00000.npz").unlink()  # not there yet: it would be rolled out, but only after the check
    with pytest.raises(CheckpointError) as e:
        supervise(net, folder, DATA)
    text = str(e.value)
    assert "targets-00001.npz" in text and named in text and "delete it" in text and "\n" not in text, text
    assert not (folder / "targets-00000.npz").exists()  # refused before any rollout


def test_a_truncated_shard_is_named(data_set):
    net, folder = data_set
    shard = folder / "targets-00000.npz"
    shard.write_bytes(shard.read_bytes()[:60])
    with pytest.raises(CheckpointError, match="targets-00000.npz"):
        supervise(net, folder, DATA)


def test_a_shard_not_there_yet_is_rolled_out_again(data_set):
    net, folder = data_set
    with np.load(folder / "targets-00000.npz") as z:
        kept = z["probabilities"].copy()
    (folder / "targets-00000.npz").unlink()
    run = supervise(net, folder, DATA)
    with np.load(folder / "targets-00000.npz") as z:
        np.testing.assert_array_equal(z["probabilities"], kept)
    assert np.isfinite(run.after)


def test_targets_of_1e6_exit_2_on_the_command_line(tmp_path, capsys):
    _net().save(tmp_path / "net.npz")
    args = ["train", "supervise", str(tmp_path / "net.npz"), "--data", str(tmp_path / "d"), "--out",
            str(tmp_path / "r.npz"), "--positions", "10", "--trials", "1", "--truncate", "1", "--epochs", "1",
            "--eval-games", "0", "--json"]
    assert main(args) == 0
    capsys.readouterr()
    os.remove(tmp_path / "r.npz")
    _write_targets(tmp_path / "d" / "targets-00000.npz", np.full((10, 5), 1e6, np.float32))
    assert main(args) == 2
    _one_line_error(capsys.readouterr().err, "fastgen train supervise: error:", "targets-00000.npz", "delete it")
    assert not (tmp_path / "r.npz").exists()


# ----------------------------------------------------------------------------- (15) malformed curve logs


CURVES = {
    "deeply_nested": _deep(100_000),
    "not_a_list": json.dumps({"games": 1}),
    "point_not_a_dict": json.dumps([3]),
    "no_games": json.dumps([{"loss": 0.5}]),
    "games_falling": json.dumps([{"games": 20}, {"games": 10}]),
    "pubeval_not_a_dict": json.dumps([{"games": 10, "pubeval": [0.1]}]),
    "ppg_a_string": json.dumps([{"games": 10, "pubeval": {"ppg": "0.1", "se": 0.01, "ci95": [0.0, 0.2]}}]),
    "ci95_of_wrong_length": json.dumps([{"games": 10, "pubeval": {"ppg": 0.1, "se": 0.01, "ci95": [0.0]}}]),
    "loss_nan": json.dumps([{"games": 10, "loss": float("nan")}]),
    "not_utf8": b"\xff\xfe[",
}
CURVE_FAULTS = {"deeply_nested": "too deeply", "not_a_list": "it holds", "point_not_a_dict": "point 0",
                "no_games": "'games'", "games_falling": "point 1", "pubeval_not_a_dict": "'pubeval'",
                "ppg_a_string": "'ppg'", "ci95_of_wrong_length": "'ci95'", "loss_nan": "'loss'",
                "not_utf8": "utf-8"}


@pytest.mark.parametrize("variant", sorted(CURVES))
def test_plot_of_a_malformed_curve_exits_2(tmp_path, capsys, variant):
    path = tmp_path / "bad.curve.json"
    data = CURVES[variant]
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    assert main(["train", "plot", str(path), "--out", str(tmp_path / "c.png")]) == 2
    _one_line_error(capsys.readouterr().err, "fastgen train plot: error:", "bad.curve.json", CURVE_FAULTS[variant])
    assert not (tmp_path / "c.png").exists()


def test_check_curve_accepts_the_trainers_curves_and_refuses_others(tmp_path):
    log = Path(__file__).resolve().parent.parent / "docs" / "guides" / "train_run.json"
    points = json.loads(log.read_text())
    assert check_curve(points, "log") is points
    with pytest.raises(CheckpointError, match=r"'curve log' .*point 0's 'previous' has a 'ppg'"):
        check_curve([{"games": 1, "previous": {"ppg": 9, "se": 0.1, "ci95": [0, 1]}}], "'curve log'")


# ----------------------------------------------------------------------------- (16) --resume contradicted


def test_resume_refuses_settings_that_contradict_the_checkpoint(tmp_path, capsys):
    out = tmp_path / "bot.npz"
    assert main(["train", "td", "--out", str(out), *TINY]) == 0
    capsys.readouterr()
    before = out.read_bytes()
    assert main(["train", "td", "--out", str(out), "--resume", "--hidden", "64", "--lr", "0.5"]) == 2
    _one_line_error(capsys.readouterr().err, "fastgen train td: error:", "--hidden 64", "--hidden 4", "bot.npz")
    assert main(["train", "td", "--out", str(out), "--resume", "--lr", "0.5"]) == 2
    _one_line_error(capsys.readouterr().err, "--lr 0.5", "--lr 0.1")
    assert main(["train", "td", "--out", str(out), "--resume", "--no-contact"]) == 2
    _one_line_error(capsys.readouterr().err, "--no-contact", "with the contact features")
    assert out.read_bytes() == before
    # the checkpoint's own settings may be repeated, and --games extends the run
    assert main(["train", "td", "--out", str(out), "--resume", "--hidden", "4", "--seed", "1", "--games", "60"]) == 0
    assert read_checkpoint(out).games == 60
