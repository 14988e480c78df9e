"""5,000 damaged match files (text, .sgf, .xg) through :func:`fastgen.read_match`.

The run of ``tests/fuzz/match_files.py`` with its fixed seed 20261204, inputs 0..4,999
(the command runs 100,000 and more): every input must be read into a match that writes
and reads back as ``.mat``, or be refused with a MatFileError, each within 5 seconds.
"""

from __future__ import annotations

from fuzz import match_files


def test_5000_damaged_match_files_are_read_or_refused_with_a_match_file_error():
    count, failures = match_files.run(20261204, 0, 5000, 5.0)
    assert count == 5000
    assert not failures, "\n".join(f"input {k}: {p}" for k, p in failures[:5])


def test_the_mutations_damage_every_format():
    import numpy as np

    seeds = match_files.seed_files()
    assert {kind for kind, _ in seeds} == {"mat", "sgf", "xg"}
    rng = np.random.default_rng(1)
    changed = sum(match_files.mutate(data, kind, rng) != data for kind, data in seeds for _ in range(5))
    assert changed >= 0.9 * 5 * len(seeds)
