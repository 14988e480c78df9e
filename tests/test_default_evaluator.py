"""The commands that judge (analyse, hint, cube, rollout-plays) use GNU Backgammon's nets
when their weights are found and fastgen's shipped network otherwise, and say which."""

from __future__ import annotations

import json

import pytest

from fastgen.cli.main import main
from fastgen.errors import GnubgWeightsNotFoundError
from fastgen.nets import gnubg_weights
from fastgen.players import specs

POSITION = ["--position", "4HPwATDgc/ABMA"]
COMMANDS = {
    "hint": (["hint", *POSITION, "--dice", "31", "--json"], lambda out: json.loads(out)["evaluator"]),
    "cube": (["cube", *POSITION], lambda out: out.splitlines()[0].split(", ")[0].split()[-1]),
    "rollout-plays": (["rollout-plays", *POSITION, "--dice", "31", "--trials", "4", "--plays", "2", "--json"],
                      lambda out: json.loads(out)["evaluator"]),
    "analyse": (["analyse", "docs/_data/example-7pt.mat", "--no-cube"],
                lambda out: out.splitlines()[1].split("analysed by ")[1].split()[0]),
}


def _missing(*args, **kwargs):
    raise GnubgWeightsNotFoundError("no weights here (the test)")


def test_the_default_follows_the_weights(monkeypatch):
    monkeypatch.delenv(gnubg_weights.ENVIRONMENT_VARIABLE, raising=False)
    try:
        gnubg_weights.find_weights()
        found = True
    except GnubgWeightsNotFoundError:
        found = False
    assert specs.default_evaluator() == ("gnubg:0" if found else "baseline")
    monkeypatch.setattr(specs, "find_weights", _missing)
    assert specs.default_evaluator() == "baseline"
    monkeypatch.setattr(specs, "find_weights", gnubg_weights.find_weights)
    monkeypatch.setenv(gnubg_weights.ENVIRONMENT_VARIABLE, "/no/such/gnubg.weights")
    with pytest.raises(GnubgWeightsNotFoundError):   # asked for gnubg's nets: not quietly the baseline
        specs.default_evaluator()


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_each_command_names_the_evaluator_that_judged(command, monkeypatch, capsys):
    args, named = COMMANDS[command]
    monkeypatch.delenv(gnubg_weights.ENVIRONMENT_VARIABLE, raising=False)
    try:
        gnubg_weights.find_weights()
    except GnubgWeightsNotFoundError as exc:
        pytest.skip(f"no GNU Backgammon weights here ({exc}): the gnubg:0 default cannot be shown")
    assert main(args) == 0
    assert named(capsys.readouterr().out) == "gnubg:0"
    monkeypatch.setattr(specs, "find_weights", _missing)
    assert main(args) == 0
    assert named(capsys.readouterr().out) == "baseline"
    monkeypatch.setattr(specs, "find_weights", gnubg_weights.find_weights)
    monkeypatch.setenv(gnubg_weights.ENVIRONMENT_VARIABLE, "/no/such/gnubg.weights")
    assert main(args) == 2
    assert "/no/such/gnubg.weights" in capsys.readouterr().err
