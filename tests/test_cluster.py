"""Rollouts on a real Dask cluster (two worker processes on 127.0.0.1, started here):
game-for-game equality with the in-process rollout for every kind of policy and start,
Ctrl-C, and saving / resuming finished chunks. Skipped when the dask extra is absent."""

import json
import os
import threading

import numpy as np
import pytest

import fastgen
from fastgen.errors import InvalidArgumentError, NotPicklableError, RolloutStoreError
from fastgen.sim.rollout.chunks import RolloutInterrupted, RolloutStore

distributed = pytest.importorskip("distributed", reason="dask not installed: pip install '.[dask]'")
pytest.importorskip("cloudpickle", reason="cloudpickle not installed: pip install '.[dask]'")


def _same_games(a, b):
    for k in ("winner", "result", "turns", "points"):
        np.testing.assert_array_equal(getattr(a, k), getattr(b, k), err_msg=k)
    untimed = ("seconds", "games_per_second", "turns_per_second")
    da, db = a.summary().as_dict(), b.summary().as_dict()
    assert {k: v for k, v in da.items() if k not in untimed} == {k: v for k, v in db.items() if k not in untimed}


def _board(pid):
    return fastgen.parse_position_id(pid)




def _bearoff_board():
    b = np.zeros((2, 25), dtype=np.int8)
    b[0, :6] = [3, 2, 2, 3, 2, 3]
    b[1, :6] = [2, 3, 3, 2, 3, 2]
    return b


def _bar_board():
    b = fastgen.STARTING_BOARD.copy()
    b[1, 23] -= 1
    b[1, 24] += 1  # one checker of the side on roll on the bar
    return b


@pytest.mark.parametrize(
    "policy, games, chunk",
    [("random", 3000, 170), ("pubeval", 240, 23)],
)
def test_cluster_equals_in_process_from_the_opening(client, policy, games, chunk):
    ref = fastgen.rollout(games=games, policy=policy, seed=5)
    got = fastgen.rollout(games=games, policy=policy, seed=5, client=client, chunk_size=chunk)
    _same_games(got, ref)
    assert got.timings["chunks"] == -(-games // chunk)


@pytest.mark.parametrize("policy", ["random", "pubeval"])
def test_cluster_equals_in_process_from_start_positions(client, policy):
    one = _bar_board()
    ref = fastgen.rollout(games=150, policy=policy, seed=7, start=one)
    _same_games(fastgen.rollout(games=150, policy=policy, seed=7, start=one, client=client, chunk_size=16), ref)
    several = np.stack([fastgen.STARTING_BOARD, _bar_board(), _bearoff_board()])
    ref = fastgen.rollout(games=None, policy=policy, seed=7, start=several)  # one game per board
    _same_games(fastgen.rollout(games=None, policy=policy, seed=7, start=several, client=client, chunk_size=1), ref)
    ref = fastgen.rollout(games=200, policy=policy, seed=7, start=several, first_game=50)
    _same_games(fastgen.rollout(games=200, policy=policy, seed=7, start=several, first_game=50, client=client, chunk_size=33), ref)


def test_cluster_equals_in_process_for_a_user_batch_policy(client):
    pips = np.arange(1, 26, dtype=np.int64)  # closed over: sent by value

    def most_forward(candidates, offsets):
        """The play leaving the mover (row 1) the fewest pips to bear off."""
        left = (candidates[:, 1, :].astype(np.int64) * pips).sum(axis=1)
        return np.array([int(np.argmin(left[a:b])) for a, b in zip(offsets[:-1], offsets[1:])])

    ref = fastgen.rollout(games=120, policy=most_forward, seed=3, batch_size=50)
    got = fastgen.rollout(games=120, policy=most_forward, seed=3, client=client, chunk_size=17)
    _same_games(got, ref)
    assert got.policy == "most_forward"


def test_unpicklable_policy_is_refused_before_any_work(client):
    class Holder:
        def __init__(self):
            self.lock = threading.Lock()

        def __call__(self, candidates, offsets):
            return np.zeros(offsets.shape[0] - 1, dtype=np.int64)

    seen = []
    with pytest.raises(NotPicklableError, match="cannot be sent to Dask workers"):
        fastgen.rollout(games=100, policy=Holder(), client=client, progress=seen.append)
    assert seen == []


def test_bad_cluster_arguments_are_refused():
    with pytest.raises(InvalidArgumentError, match="at most one of workers, scheduler or client"):
        fastgen.rollout(games=10, workers=1, scheduler="tcp://127.0.0.1:1")
    with pytest.raises(ValueError, match="workers"):
        fastgen.rollout(games=10, workers=0)
    with pytest.raises(ValueError, match="chunk_size"):
        fastgen.rollout(games=10, out=None, workers=1, chunk_size=0)


def test_progress_counts_every_game_and_ctrl_c_keeps_finished_chunks(client):
    seen = []
    fastgen.rollout(games=1000, seed=2, client=client, chunk_size=100, progress=seen.append)
    assert sorted(seen) == [100] * 10

    def interrupt_after_three(n, count=[]):
        count.append(n)
        if len(count) == 3:
            raise KeyboardInterrupt

    ref = fastgen.rollout(games=2000, seed=2)
    with pytest.raises(RolloutInterrupted) as info:
        fastgen.rollout(games=2000, seed=2, client=client, chunk_size=100, progress=interrupt_after_three)
    part = info.value.result
    assert info.value.finished == part.games == 300 and info.value.total == 2000
    # the finished games are real games of the run (the order of chunks is not fixed)
    assert part.total_turns > 0 and set(part.turns.tolist()) <= set(ref.turns.tolist())


def test_out_saves_parts_and_resume_finishes_identically(client, tmp_path):
    out = tmp_path / "run"
    ref = fastgen.rollout(games=1500, seed=9)

    def stop_after_four(n, count=[]):
        count.append(n)
        if len(count) == 4:
            raise KeyboardInterrupt

    with pytest.raises(RolloutInterrupted):
        fastgen.rollout(games=1500, seed=9, client=client, chunk_size=100, out=out, progress=stop_after_four)
    parts = sorted(p for p in os.listdir(out) if p.startswith("part-"))
    assert 4 <= len(parts) < 15
    assert RolloutStore.read_run(out)["chunk_size"] == 100
    # damage one finished part: it is played again, not trusted
    with open(out / parts[0], "r+b") as f:
        f.truncate(10)
    got = fastgen.rollout(games=1500, seed=9, client=client, out=out)
    _same_games(got, ref)
    assert got.timings["chunks_loaded"] == len(parts) - 1
    assert got.timings["chunks_played"] == 15 - len(parts) + 1
    # a finished directory gives the same result in-process, playing nothing
    again = fastgen.rollout(games=1500, seed=9, out=out)
    _same_games(again, ref)
    assert again.timings["chunks_played"] == 0
    with pytest.raises(RolloutStoreError, match="another rollout"):
        fastgen.rollout(games=1500, seed=10, out=out)


def test_cli_workers_1_and_2_print_the_same_result(capsys, tmp_path):
    from fastgen.cli.main import main

    outputs = []
    for workers in (1, 2):
        assert main(["rollout", "--games", "4000", "--seed", "5", "--workers", str(workers), "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        for k in ("seconds", "games_per_second", "turns_per_second", "timings"):
            data.pop(k)
        outputs.append(data)
    assert outputs[0] == outputs[1]
    assert main(["rollout", "--games", "4000", "--seed", "5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {k: v for k, v in data.items() if k in outputs[0]} == outputs[0]


# --------------------------------------------------------------------------- perft


@pytest.mark.parametrize("position, depth", [("4HPwATDgc/ABMA", 2), ("bJ3BATDgc/ABYA", 3)])
def test_perft_on_the_cluster_equals_in_process_whatever_the_split(client, position, depth):
    from fastgen.search.perft import perft_run

    board = fastgen.parse_position_id(position)
    want = fastgen.perft(board, depth)
    for split, tasks in ((1, 3), (depth - 1, 16), (None, None)):
        run = perft_run(board, depth, client=client, split_depth=split, tasks=tasks)
        assert run.counts == want, (split, tasks)
        assert run.tasks >= 1 and run.split_depth >= 1
    assert fastgen.perft_weighted(board, 2, client=client) == fastgen.perft_weighted(board, 2)


def test_perft_on_the_cluster_when_every_game_ends_at_the_first_level(client):
    """Every roll bears off the mover's last checker: the frontier to split is empty."""
    board = np.zeros((2, 25), dtype=np.int8)
    board[1, 0], board[0, 5] = 1, 15
    assert fastgen.perft(board, 3, client=client) == fastgen.perft(board, 3) == [21, 0, 0]


def test_scheduler_address_reaches_the_same_cluster(client):
    address = client.scheduler.address  # tcp://127.0.0.1:<port>
    ref = fastgen.rollout(games=500, seed=4)
    _same_games(fastgen.rollout(games=500, seed=4, scheduler=address, chunk_size=100), ref)
    assert fastgen.perft(fastgen.STARTING_BOARD, 2, scheduler=address) == fastgen.perft(fastgen.STARTING_BOARD, 2)


def test_a_started_cluster_runs_without_the_sampling_profiler():
    """connect(workers=N) starts its workers with Dask's profiler off (it interrupts the
    task thread every 10 ms); the caller's own config is left as it was."""
    import dask

    from fastgen.sim.cluster import connect

    before = dask.config.get("distributed.worker.profile.enabled")
    with connect(workers=1) as c:
        assert list(c.run(lambda: dask.config.get("distributed.worker.profile.enabled")).values()) == [False]
        assert dask.config.get("distributed.worker.profile.enabled") == before


def test_duels_with_the_cube_on_the_cluster_equal_in_process(client):
    # money games and matches with the cube, cut into chunks of 30 games and 6 matches
    # (7 -> 8 games and 5 -> 6 matches rounded to whole mirrored pairs): the same games,
    # cubes and records as in this process
    here = fastgen.duel("baseline", "baseline", 90, seed=12, cube=True, records=True, start=None)
    there = fastgen.duel("baseline", "baseline", 90, seed=12, cube=True, records=True, client=client, chunk_size=29)
    for k in ("winner", "result", "turns", "cube"):
        np.testing.assert_array_equal(getattr(here, k), getattr(there, k), err_msg=k)
    assert here.records == there.records and there.timings["chunk_size"] == 30
    m_here = fastgen.duel_matches("baseline", "baseline", 22, 3, seed=13, mirrored=False, records=True)
    m_there = fastgen.duel_matches("baseline", "baseline", 22, 3, seed=13, mirrored=False, records=True,
                           client=client, chunk_size=5)
    for k in ("winner", "score", "games"):
        np.testing.assert_array_equal(getattr(m_here, k), getattr(m_there, k), err_msg=k)
    assert m_here.records == m_there.records
