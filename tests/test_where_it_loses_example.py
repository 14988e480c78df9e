"""examples/where_it_loses.py: the bot's gap to gnubg-nn by position class.

Needs gnubg-nn (the ``peers`` extra); skipped, saying so, without it."""

from __future__ import annotations

import pytest

from fastgen.players import evaluators
from fastgen.nets import NetworkSet

from _examples import load_example

pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed: pip install '.[peers]'")


@pytest.fixture(scope="module")
def example():
    return load_example("where_it_loses")


def test_players_take_each_class_from_the_right_evaluator(example):
    bot, gnubg = evaluators.baseline(), evaluators.gnubg(0)
    for which in example.PLAYERS:
        p = example.player(which, bot, gnubg)
        assert isinstance(p, NetworkSet)
    assert example.player("gnubg_contact+bot", bot, gnubg).contact is gnubg
    assert example.player("bot+gnubg_race", bot, gnubg).race is gnubg
    assert example.player("bot+bearoff", bot, gnubg).databases
    with pytest.raises(ValueError, match="unknown player"):
        example.player("nobody", bot, gnubg)


def test_gnubgs_contact_play_closes_most_of_the_gap(example):
    # 4,000 mirrored games, seed 1: the baseline's gap to gnubg 0-ply is about 0.08 a game
    # and nearly all of it is contact play, so taking gnubg's contact play must gain more
    # than 0.02; the standard error of the baseline's line is about 0.02 and the other's
    # far smaller (its games are nearly gnubg's own), so the margin is about three SE.
    bot = evaluators.baseline()
    alone = example.run("bot", 4000, 1, bot)
    helped = example.run("gnubg_contact+bot", 4000, 1, bot)
    assert helped["ppg"] - alone["ppg"] > 0.02, (alone, helped)
    assert alone["se"] > helped["se"]


def test_command_line(example, capsys, tmp_path):
    out = tmp_path / "lines.json"
    example.main(["--games", "20", "--players", "bot", "bot+bearoff", "--json", str(out)])
    text = capsys.readouterr().out
    assert text.count("+/-") == 2 and out.exists()
