"""The identity of a run kept in ``out=DIR``: a resumed rollout uses only the parts of
the same run (same arguments, same evaluator or policy content, values it can produce)."""

import json
import os

import numpy as np
import pytest

import fastgen
from fastgen.players import evaluators
from fastgen.errors import InvalidArgumentError, RolloutStoreError

START = fastgen.STARTING_BOARD
KW = dict(plays=["8/5 6/5", "24/21 6/5"], trials=72, chunk_size=36, truncate=8)
PART0 = "part-000000000000-000000000036.npz"


def _net(seed):
    return evaluators.random_network(hidden=8, seed=seed)


def _decide(evaluator, out=None, **kw):
    return fastgen.rollout_plays(START, (3, 1), evaluator, out=out, **{**KW, **kw})


def _rewrite(file, **change):
    """Rewrite the npz *file* with some arrays changed (a function of the old array)."""
    with np.load(file) as z:
        arrays = {k: z[k] for k in z.files}
    for k, f in change.items():
        arrays[k] = f(arrays[k])
    with open(file, "wb") as f:
        np.savez(f, **arrays)


def test_network_digest_is_its_weights_not_its_name():
    a, b = _net(0), _net(0)
    b.__name__ = "another name"
    assert a.digest() == b.digest() and len(a.digest()) == 64
    assert a.__name__ == _net(1).__name__ and a.digest() != _net(1).digest()
    three = evaluators.ReferenceNetwork(a.w1, a.b1, a.w2[:, :3], a.b2[:3])
    assert three.digest() != a.digest()


def test_another_network_of_the_same_name_is_refused(tmp_path):
    _decide(_net(0), tmp_path)
    with pytest.raises(RolloutStoreError, match="another evaluator"):
        _decide(_net(1), tmp_path)
    again = _decide(_net(0), tmp_path)  # the same network: loads both chunks
    assert again.stats["chunks_loaded"] == 2 and "chunks_played" not in again.stats


def test_a_part_of_another_run_is_refused_naming_it(tmp_path):
    _decide(_net(8), tmp_path / "eight")
    _decide(_net(0), tmp_path / "zero")
    os.replace(tmp_path / "eight" / PART0, tmp_path / "zero" / PART0)
    with pytest.raises(RolloutStoreError, match=PART0 + ".*another run"):
        _decide(_net(0), tmp_path / "zero")


@pytest.mark.parametrize("damage, message", [
    (lambda a: a * 1000.0, "outside"),
    (lambda a: np.where(np.arange(a.size).reshape(a.shape) == 3, np.nan, a), "non-finite"),
    (lambda a: a[:, :10], "shape"),
])
def test_a_part_with_impossible_values_is_refused_or_recomputed(tmp_path, damage, message):
    ref = _decide(_net(0))
    _decide(_net(0), tmp_path)
    _rewrite(tmp_path / PART0, raw=damage, estimate=damage)
    with pytest.raises(RolloutStoreError, match=PART0 + ".*" + message):
        _decide(_net(0), tmp_path)
    got = _decide(_net(0), tmp_path, resume="recompute")
    assert got.stats["chunks_loaded"] == 1 and got.stats["chunks_played"] == 1
    assert [r.equity for r in got.rows] == pytest.approx([r.equity for r in ref.rows], abs=1e-6)
    assert _decide(_net(0), tmp_path).stats["chunks_loaded"] == 2  # the part was overwritten


def test_a_part_renamed_to_another_range_is_refused(tmp_path):
    _decide(_net(0), tmp_path)
    other = tmp_path / "part-000000000036-000000000072.npz"
    other.write_bytes((tmp_path / PART0).read_bytes())  # trials 0-35 under the name of 36-71
    with pytest.raises(RolloutStoreError, match="part-000000000036-000000000072.npz.*not \\[36, 72\\]"):
        _decide(_net(0), tmp_path)


def test_a_part_without_identity_is_refused(tmp_path):
    _decide(_net(0), tmp_path)
    with np.load(tmp_path / PART0) as z:
        raw, est = z["raw"], z["estimate"]
    with open(tmp_path / PART0, "wb") as f:
        np.savez(f, raw=raw, estimate=est)
    with pytest.raises(RolloutStoreError, match="no run identity"):
        _decide(_net(0), tmp_path)


def test_an_opaque_evaluator_needs_a_key_to_resume(tmp_path):
    net = _net(0)

    def opaque(boards):
        return net(boards)

    with pytest.raises(InvalidArgumentError, match="key="):
        _decide(opaque, tmp_path / "a")
    with pytest.raises(InvalidArgumentError, match="key="):
        fastgen.rollout_position(START, opaque, trials=36, out=tmp_path / "a")
    assert not (tmp_path / "a").exists()
    _decide(opaque, tmp_path / "b", key="net-0")
    assert _decide(opaque, tmp_path / "b", key="net-0").stats["chunks_loaded"] == 2
    with pytest.raises(RolloutStoreError, match="another evaluator"):
        _decide(opaque, tmp_path / "b", key="net-1")
    with pytest.raises(InvalidArgumentError, match="resume"):
        _decide(net, tmp_path / "c", resume="maybe")


def test_an_older_run_directory_is_refused(tmp_path):
    _decide(_net(0), tmp_path)
    manifest = tmp_path / "manifest.json"
    data = json.loads(manifest.read_text())
    data["format"] = "fastgen-decide-chunks/1"
    del data["identity"]
    manifest.write_text(json.dumps(data))
    with pytest.raises(RolloutStoreError, match="older format"):
        _decide(_net(0), tmp_path)


def test_writes_leave_no_temporary_file_on_failure(tmp_path, monkeypatch):
    from fastgen.sim import store

    _decide(_net(0), tmp_path / "run")
    (tmp_path / "run" / PART0).unlink()

    def broken(fd):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", broken)
    with pytest.raises(RolloutStoreError, match="cannot write a part"):
        _decide(_net(0), tmp_path / "run")  # the chunk played again cannot be saved
    with pytest.raises(RolloutStoreError, match="cannot write the rollout directory"):
        _decide(_net(0), tmp_path / "new")
    with pytest.raises(OSError, match="disk full"):
        _net(0).save(tmp_path / "w.npz")
    monkeypatch.undo()
    assert sorted(os.listdir(tmp_path / "run")) == [store.MANIFEST, "part-000000000036-000000000072.npz"]
    assert os.listdir(tmp_path / "new") == []
    assert sorted(os.listdir(tmp_path)) == ["new", "run"]


def test_network_save_keeps_numpy_naming(tmp_path):
    net = _net(3)
    net.save(tmp_path / "w")  # numpy appends .npz
    net.save(str(tmp_path / "v.npz"))
    assert sorted(os.listdir(tmp_path)) == ["v.npz", "w.npz"]
    assert evaluators.ReferenceNetwork.load(tmp_path / "w.npz").digest() == net.digest()


def test_out_equals_the_plain_run_as_documented(tmp_path):
    """With an evaluator computing each position on its own in float64 the table with out=
    is the plain one to the last bit; a float32 network's matrix products round by batch,
    so there the two agree to float32 precision only."""
    def exact(boards):
        pips = (boards.astype(np.int64) * np.arange(1, 26)).sum(axis=2)
        p = 1.0 / (1.0 + np.exp((pips[:, 1] - pips[:, 0]) / 20.0))
        return np.stack([p, 0.1 * p, 0.0 * p, 0.1 * (1 - p), 0.0 * p], axis=1)

    kw = dict(trials=100, chunk_size=36)
    a, b = _decide(exact, **kw), _decide(exact, tmp_path / "x", key="pips", **kw)
    for ra, rb in zip(a.rows, b.rows):
        assert np.array_equal(ra.samples, rb.samples) and ra.equity == rb.equity
    a, b = _decide(_net(0), **kw), _decide(_net(0), tmp_path / "y", **kw)
    for ra, rb in zip(a.rows, b.rows):
        assert np.allclose(ra.samples, rb.samples, rtol=0, atol=1e-5)


# --------------------------------------------------------------------------- rollout(out=)


def test_game_rollout_parts_carry_the_run_identity(tmp_path):
    ref = fastgen.rollout(games=200, seed=3, chunk_size=100, out=tmp_path / "three")
    fastgen.rollout(games=200, seed=4, chunk_size=100, out=tmp_path / "four")
    part = "part-000000000000-000000000100.npz"
    os.replace(tmp_path / "four" / part, tmp_path / "three" / part)
    with pytest.raises(RolloutStoreError, match=part + ".*another run"):
        fastgen.rollout(games=200, seed=3, out=tmp_path / "three")
    got = fastgen.rollout(games=200, seed=3, out=tmp_path / "three", resume="recompute")
    assert np.array_equal(got.winner, ref.winner) and np.array_equal(got.turns, ref.turns)
    _rewrite(tmp_path / "three" / part, winner=lambda a: a + 5)
    with pytest.raises(RolloutStoreError, match=part + ".*winners outside"):
        fastgen.rollout(games=200, seed=3, out=tmp_path / "three")


def test_game_rollout_identifies_the_policy(tmp_path):
    fastgen.rollout(games=50, policy=_net(0), seed=1, out=tmp_path / "n")
    with pytest.raises(RolloutStoreError, match="another policy"):
        fastgen.rollout(games=50, policy=_net(1), seed=1, out=tmp_path / "n")
    choose = evaluators.greedy(_net(0))
    with pytest.raises(InvalidArgumentError, match="key="):
        fastgen.rollout(games=50, policy=choose, seed=1, out=tmp_path / "g")
    fastgen.rollout(games=50, policy=choose, seed=1, out=tmp_path / "g", key="greedy net 0")
    again = fastgen.rollout(games=50, policy=choose, seed=1, out=tmp_path / "g", key="greedy net 0")
    assert again.timings["chunks_played"] == 0


def test_cli_out_with_a_module_callable_policy_needs_a_key(tmp_path, monkeypatch, capsys):
    from fastgen.cli.main import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.path", list(__import__("sys").path))
    (tmp_path / "first_play_bot.py").write_text("def play(candidates, offsets):\n    return [0] * (len(offsets) - 1)\n")
    args = ["rollout", "--games", "40", "--chunk-size", "20", "--policy", "first_play_bot:play", "--json",
            "--out", str(tmp_path / "run")]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "--key TEXT" in err and "'first_play_bot:play'" in err
    assert not (tmp_path / "run").exists()
    assert main(args + ["--key", "first-play-1"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(args + ["--key", "first-play-1"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["timings"]["chunks_loaded"] == 2 and again["timings"]["chunks_played"] == 0
    assert {k: again[k] for k in ("win", "gammon", "backgammon")} == {k: first[k] for k in ("win", "gammon", "backgammon")}
    with pytest.raises(RolloutStoreError):  # another key: another run, refused in the same folder
        fastgen.rollout(games=40, chunk_size=20, policy="first_play_bot:play", out=tmp_path / "run", key="first-play-2")
    assert main(["rollout", "--games", "40", "--key", "k"]) == 2
    assert "give --out DIR" in capsys.readouterr().err
