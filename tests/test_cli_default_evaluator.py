"""More of the judging commands' default evaluator (tests/test_default_evaluator.py has
the choice itself): each command's help says what it is, the choice imports no optional
package, and every output, text and JSON, names the evaluator that judged."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from fastgen.cli.main import main
from fastgen.errors import GnubgWeightsNotFoundError
from fastgen.nets import gnubg_weights
from fastgen.players import specs

from _child import child_env

OPENING = ["--position", "4HPwATDgc/ABMA"]
COMMANDS = ("analyse", "hint", "cube", "rollout-plays")
#: The 7-point match of the analysis guide (3 games).
MATCH = Path(__file__).resolve().parents[1] / "docs" / "_data" / "example-7pt.mat"


@pytest.fixture
def no_weights(monkeypatch):
    """As on a machine without GNU Backgammon's weights."""
    monkeypatch.delenv(gnubg_weights.ENVIRONMENT_VARIABLE, raising=False)

    def not_found(path=None):
        raise GnubgWeightsNotFoundError("found no GNU Backgammon weights file (test)")

    monkeypatch.setattr(specs, "find_weights", not_found)


@pytest.fixture
def weights(monkeypatch):
    """GNU Backgammon's weights named by FASTGEN_GNUBG_WEIGHTS (the file found here)."""
    try:
        path = gnubg_weights.find_weights()
    except GnubgWeightsNotFoundError as exc:
        pytest.skip(f"no GNU Backgammon weights file found ({exc})")
    monkeypatch.setenv(gnubg_weights.ENVIRONMENT_VARIABLE, path)
    return path


@pytest.mark.parametrize("command", COMMANDS)
def test_the_help_says_what_the_default_is(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert text.startswith(f"usage: fastgen {command}")
    assert "default: gnubg:0" in text and "else baseline" in text and "(default: baseline)" not in text


def test_the_choice_imports_no_optional_package():
    code = ("import sys; from fastgen.players.specs import default_evaluator; print(default_evaluator()); "
            "print(sorted(m for m in ('gnubg_nn', 'gnubg') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=tempfile.gettempdir(), env=child_env())  # the installed fastgen, not the source tree
    assert done.returncode == 0, done.stderr
    spec, imported = done.stdout.splitlines()
    assert spec in ("gnubg:0", "baseline") and imported == "[]"


def _run(capsys, *argv):
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def _outputs(capsys):
    """{command: (text output, JSON output)} of each command run without --evaluator."""
    out = {}
    for command, extra in (("analyse", [str(MATCH)]), ("hint", [*OPENING, "--dice", "31"]), ("cube", OPENING),
                           ("rollout-plays", [*OPENING, "--dice", "31", "--trials", "2", "--plays", "2",
                                              "--truncate", "2"])):
        out[command] = (_run(capsys, command, *extra), json.loads(_run(capsys, command, *extra, "--json")))
    return out


def _names(outputs, spec):
    text, data = outputs["analyse"]
    assert f"analysed by {spec} at 0 ply" in text and data["evaluator"] == spec
    text, data = outputs["hint"]
    assert f"Cubeful {spec}" in text.splitlines()[0] and data["evaluator"] == spec
    text, data = outputs["cube"]
    assert text.startswith(f"Cube analysis (0-ply {spec},") and data["evaluator"] == spec
    text, data = outputs["rollout-plays"]
    assert f"evaluator {spec}," in text.splitlines()[0] and data["evaluator"] == spec


def test_with_the_weights_every_output_names_gnubg_0(weights, capsys):
    _names(_outputs(capsys), "gnubg:0")


def test_without_the_weights_every_output_names_baseline(no_weights, capsys):
    _names(_outputs(capsys), "baseline")


def test_cube_json_names_the_evaluator_given_and_none_for_given_probabilities(capsys):
    assert main(["cube", *OPENING, "--evaluator", "network:1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["evaluator"] == "network:1"
    assert main(["cube", *OPENING, "--probs", "0.6", "0.2", "0.01", "0.1", "0.005", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["evaluator"] is None
