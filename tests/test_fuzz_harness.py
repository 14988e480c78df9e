"""The atheris harness of tests/fuzz/ still runs: every target accepts its seeds and a few
bytes of garbage (the fuzzing itself is not part of the tests; see tests/fuzz/README.md)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("atheris", reason="atheris not installed: pip install atheris")

HARNESS = Path(__file__).parent / "fuzz" / "fuzz_parsers.py"


@pytest.fixture(scope="module")
def harness():
    spec = importlib.util.spec_from_file_location("fuzz_parsers", HARNESS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("target", ["position_id", "match_id", "gnubg_id", "xgid", "move_text", "read_mat"])
def test_target_accepts_seeds_and_garbage(harness, target):
    run = harness.TARGETS[target]
    seeds = harness.seeds(target)
    assert seeds
    for data in seeds + [b"", b"\x00", b"\xff\xfe", b"A" * 14, b"XGID=" + b"-" * 26, "８/５".encode()]:
        run(data)
