"""Benchmark plumbing: shared workloads, and speed-up ratios printed after the run.

Each benchmark records how many positions one round processes in
``benchmark.extra_info["positions"]``; ratios compare median time per position against
the group's baseline (GNU Backgammon through gnubg-nn when installed, and the reference
oracle), both measured in the same run. A benchmark with ``extra_info["results"] ==
"kept"`` keeps every result alive and is compared with the baseline that does the same;
the others drop their results and are compared with a baseline that drops its own.
"""

import re

import pytest

from fastgen.cli.workload import random_game_positions, vector_workload

BASELINES = ("gnubg_nn", "pgx", "openspiel", "oracle", "generate_only", "makebearoff", "gnubg_hint",
             "gnubg_analyse")


@pytest.fixture(scope="session")
def vectors():
    """The shared vector workload: 2,000 positions x 21 rolls (42,000 generations)."""
    return vector_workload()


@pytest.fixture(scope="session")
def random_games():
    """20,000 positions from random self-play with random dice (seed 1)."""
    return random_game_positions(20_000, seed=1)


@pytest.fixture(scope="session")
def gnubg():
    return pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed: pip install '.[peers]'")


def per_position_median(bench) -> float:
    return bench.stats.median / bench.extra_info["positions"]


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter, config):
    session = getattr(config, "_benchmarksession", None)
    if session is None or not session.benchmarks:
        return
    _cluster_summary(terminalreporter, session.benchmarks)
    _overhead_summary(terminalreporter, session.benchmarks)
    groups = {}
    for bench in session.benchmarks:
        if "positions" in bench.extra_info:
            groups.setdefault(bench.group, []).append(bench)
    terminalreporter.section("fastgen speed-up ratios (median time per position, same run)")
    for group, benches in sorted(groups.items()):
        for base_key in BASELINES:
            for b in benches:
                if any(k in b.name for k in BASELINES):
                    continue
                # the oracle is one baseline for all; others: same results handling only
                bases = [
                    o for o in benches
                    if base_key in o.name and (base_key == "oracle" or _results(o) == _results(b))
                ]
                if not bases:
                    continue
                ratio = per_position_median(bases[0]) / per_position_median(b)
                # a ratio below 1 (slower than the baseline) also says how many times its time
                shown = f"{ratio:.1f}x" if ratio >= 1 else f"{ratio:.2f}x (takes {1 / ratio:.2f}x the time of)"
                terminalreporter.write_line(
                    f"[{group}] {b.name}: {per_position_median(b) * 1e6:.3f} us/position, "
                    f"{shown} {bases[0].name}"
                )
        # threads: each multi-threaded run against the same test with one thread
        for b in benches:
            threads = b.extra_info.get("threads", 1)
            if threads == 1:
                continue
            one = [o for o in benches if o.extra_info.get("threads") == 1 and _without_threads(o) == _without_threads(b)]
            if one:
                ratio = per_position_median(one[0]) / per_position_median(b)
                terminalreporter.write_line(f"[{group}] {b.name}: {ratio:.2f}x {one[0].name} (threads)")


def _cluster_summary(terminalreporter, benchmarks) -> None:
    """bench/test_cluster.py: items/s per worker count, the 2 / 1 worker ratio, the cluster
    path's overhead against in process, and the fixed cost per chunk / task."""
    ran = [b for b in benchmarks if b.stats.data]  # a failed benchmark has no timings
    rated = [b for b in ran if "workers" in b.extra_info]
    fixed = {b.name: b for b in ran if "calls" in b.extra_info}
    if not rated and not fixed:
        return
    terminalreporter.section("fastgen on Dask (median of the rounds, same run)")
    for b in rated:
        info, t = b.extra_info, b.stats.median
        same = {o.extra_info["workers"]: o.stats.median for o in rated if o.group == b.group}
        line = f"[{b.group}] {info['workers']} worker(s): {info['items'] / t:,.0f} {info['unit']}/s ({t:.2f} s)"
        if info["workers"] == 0:
            line = f"[{b.group}] in process: {info['items'] / t:,.0f} {info['unit']}/s ({t:.2f} s)"
        if info["workers"] == 1 and 0 in same:
            line += f", {100 * (t / same[0] - 1):+.1f}% time vs in process"
        if info["workers"] > 1 and 1 in same:
            line += f", {same[1] / t:.2f}x 1 worker"
        terminalreporter.write_line(line)
    for name, b in fixed.items():
        if "in-process" in name:
            continue
        base = fixed.get(name.replace("chunks", "in-process").replace("tasks", "in-process"))
        if base is not None:
            cost = (b.stats.median - base.stats.median) / b.extra_info["calls"]
            terminalreporter.write_line(f"[{b.group}] fixed cost per {b.extra_info['per']}: {cost * 1e3:.2f} ms")


def _overhead_summary(terminalreporter, benchmarks) -> None:
    """bench/test_rollout.py, group policy-overhead: the share of a rollout with a trivial
    user policy spent outside plays_batch and the policy, per batch size."""
    rows = [b for b in benchmarks if b.stats.data and "other_share" in b.extra_info]
    if not rows:
        return
    terminalreporter.section("fastgen rollout with a user policy: time outside plays_batch and the policy")
    for b in rows:
        terminalreporter.write_line(
            f"[{b.group}] {b.name}: {100 * b.extra_info['other_share']:.1f}% of the run (median of rounds)"
        )


def _results(bench) -> str:
    """"kept" when the benchmark keeps every result alive, else "dropped"."""
    return bench.extra_info.get("results", "dropped")


def _without_threads(bench) -> str:
    """The test id with its thread-count parameter (last in the brackets) removed."""
    threads = bench.extra_info.get("threads", 1)
    return re.sub(rf"(\[|-){threads}\]$", "]", bench.name)
