"""The trimmed top level, and the old names that still work for one release.

``fastgen.__all__`` holds what a user reaches for first; every name that left it is
reached from its subpackage, and the old spelling (``fastgen.read_sgf``, the renamed ID
functions, the modules ``fastgen.svg``, ``fastgen.fibs``, ``fastgen.board`` and the
players' old modules, the numpy network's old name ``fastgen.players.evaluators.Network``)
still gives the same object with a DeprecationWarning that names the new place.
"""

from __future__ import annotations

import importlib
import inspect
import pickle
import re
import sys
import warnings

import numpy as np
import pytest

import fastgen
from fastgen import _compat

#: The top level, exactly: a new public name is a decision, made here too.
TOP_LEVEL = {
    "__version__",
    # the generator
    "legal_plays", "plays_batch", "count_plays_batch", "iter_plays_batch", "release_memory", "Plays",
    "PlayBatch", "STARTING_BOARD", "swap_sides", "encode",
    # boards and plays
    "Board", "Play", "format_play", "parse_play", "check_play", "legal_steps",
    # match state and IDs
    "MatchState", "GameState", "Resignation", "position_id", "parse_position_id", "match_id", "parse_match_id",
    "gnubg_id", "parse_gnubg_id", "xgid", "parse_xgid",
    # games and matches
    "Game", "Match", "read_match", "read_matches", "write_mat",
    # the main verbs
    "rollout", "rollout_plays", "rollout_position", "rollout_cube", "duel", "duel_matches", "perft", "perft_weighted", "pubeval_best", "cube_action", "hint",
    "Search", "MoveFilter",
    # errors
    "FastgenError", "InvalidArgumentError", "InvalidBoardError", "InvalidDiceError", "InvalidMoveTextError",
    "IllegalPlayError", "IllegalActionError", "InvalidSpecError", "MatFileError",
    # subpackages
    "analysis", "bearoff", "cube", "envs", "formats", "games", "nets", "players", "search", "sim", "train",
}

#: The renamed ID functions: one pattern, NAME(...) writes an ID and parse_NAME(text) reads it.
RENAMED = {
    "board_from_position_id": ("parse_position_id", ("4HPwATDgc/ABMA",)),
    "match_state_from_id": ("parse_match_id", ("cAkAAAAAAAAE",)),
    "format_gnubg_id": ("gnubg_id", (fastgen.STARTING_BOARD, fastgen.MatchState())),
}


def test_the_top_level_holds_only_the_trimmed_names():
    assert len(fastgen.__all__) == len(set(fastgen.__all__))
    assert set(fastgen.__all__) == TOP_LEVEL
    errors = [n for n in fastgen.__all__ if inspect.isclass(getattr(fastgen, n)) and issubclass(getattr(fastgen, n), Exception)]
    assert len(errors) <= 9, errors
    modules = [n for n in fastgen.__all__ if inspect.ismodule(getattr(fastgen, n))]
    assert all(getattr(fastgen, n).__name__ == f"fastgen.{n}" for n in modules)


def test_no_old_name_is_public_or_listed():
    for old in fastgen._MOVED_NAMES:
        assert old not in fastgen.__all__ and old not in dir(fastgen), old


@pytest.mark.parametrize("old", sorted(fastgen._MOVED_NAMES))
def test_an_old_top_level_name_still_works_and_warns(old):
    place, new = fastgen._MOVED_NAMES[old]
    message = rf"fastgen\.{old} is deprecated and will be removed in fastgen {_compat.REMOVED_IN}: use {re.escape(place)}\.{new}$"
    with pytest.warns(DeprecationWarning, match=message) as record:
        value = getattr(fastgen, old)
    assert record[0].filename == __file__  # the warning points at the user's line
    assert value is getattr(importlib.import_module(place), new)
    with pytest.warns(DeprecationWarning, match=message):  # not kept at the top level: each use warns
        exec(f"from fastgen import {old}", {})  # noqa: S102 - a fixed name of the map
    if place not in ("fastgen", "fastgen.errors"):  # (fastgen.errors: every error, by its module)
        assert new in importlib.import_module(place).__all__  # public where it lives now


@pytest.mark.parametrize("old", sorted(RENAMED))
def test_a_renamed_id_function_gives_the_same_answer_with_a_warning(old):
    new, args = RENAMED[old]
    want = getattr(fastgen, new)(*args)
    with pytest.warns(DeprecationWarning, match=rf"fastgen\.{old} is deprecated .*: use fastgen\.{new}$"):
        top = getattr(fastgen, old)
    with pytest.warns(DeprecationWarning, match=rf"fastgen\.core\.ids\.{old} is deprecated .*: use fastgen\.{new}$") as record:
        got = getattr(importlib.import_module("fastgen.core.ids"), old)(*args)
    assert record[0].filename == __file__
    for answer in (top(*args), got):
        if isinstance(want, np.ndarray):
            assert (answer == want).all()
        else:
            assert answer == want


def test_the_errors_live_beside_their_subsystems():
    from fastgen import bearoff, cube, envs, errors, formats, games, nets, players, sim, train

    assert formats.MatFileError is errors.MatFileError is fastgen.MatFileError
    assert games.GameOverError is errors.GameOverError and issubclass(games.GameOverError, fastgen.IllegalActionError)
    assert bearoff.BearoffFileError is errors.BearoffFileError
    assert nets.NetworkFileError is errors.NetworkFileError
    assert sim.DeadPositionError is errors.DeadPositionError
    assert players.EngineError is errors.EngineError and players.InvalidSpecError is fastgen.InvalidSpecError
    assert cube.METFileError is errors.METFileError and train.CheckpointError is errors.CheckpointError
    assert envs.InvalidEnvOptionError is errors.InvalidEnvOptionError


def _forget(monkeypatch, old: str) -> None:
    """Drop the old module *old* from ``sys.modules`` and from its package, for this test."""
    short = old.rpartition(".")[2]
    if short in vars(fastgen):  # (not hasattr: the package's __getattr__ would import it)
        monkeypatch.delattr(fastgen, short)
    monkeypatch.delitem(sys.modules, old, raising=False)


@pytest.mark.parametrize("old", sorted(_compat.MOVED))
def test_an_old_module_still_imports_and_warns(old, monkeypatch):
    new = _compat.MOVED[old]
    short = old.rpartition(".")[2]
    _forget(monkeypatch, old)  # imported afresh, as a first import
    with pytest.warns(DeprecationWarning, match=rf"{re.escape(old)} is deprecated .*: use {re.escape(new)}$"):
        module = importlib.import_module(old)
    target = importlib.import_module(new)
    names = getattr(target, "__all__", None) or [n for n in vars(target) if not n.startswith("_")]
    assert names and all(getattr(module, name) is getattr(target, name) for name in names)
    _forget(monkeypatch, old)
    with pytest.warns(DeprecationWarning, match=re.escape(new)):  # the attribute of the package too
        assert getattr(fastgen, short).__name__ == old


def test_the_moved_modules_are_the_three_of_the_top_level_and_the_players():
    assert {"fastgen.board", "fastgen.fibs", "fastgen.svg"} <= set(_compat.MOVED)
    assert "fastgen.perft" not in _compat.MOVED  # the name is the function's


def test_perft_is_the_function_and_its_module_lives_in_search():
    from fastgen.search import perft as module  # the module: the package keeps no function of the name

    assert inspect.ismodule(module) and module.__name__ == "fastgen.search.perft"
    assert fastgen.perft is module.perft and fastgen.perft_weighted is module.perft_weighted
    assert fastgen.perft(fastgen.STARTING_BOARD, 1) == [447]
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("fastgen.perft")


def test_the_oracle_is_a_package_with_the_same_names():
    from fastgen import reference
    from fastgen.reference import oracle

    assert reference.legal_plays is oracle.legal_plays
    assert len(reference.legal_plays(fastgen.STARTING_BOARD, (3, 1))) == 16


#: The warning of the numpy network's old name.
OLD_NETWORK = (r"fastgen\.players\.evaluators\.Network is deprecated and will be removed in fastgen 0\.3: use "
               r"fastgen\.players\.evaluators\.ReferenceNetwork \(the numpy reference\) or fastgen\.nets\.Network "
               r"\(the compiled network\)$")


def test_the_numpy_network_is_the_reference_network_and_its_old_name_warns():
    from fastgen.players import evaluators

    with pytest.warns(DeprecationWarning, match=OLD_NETWORK) as record:
        old = evaluators.Network
    assert record[0].filename == __file__  # the warning points at the user's line
    assert old is evaluators.ReferenceNetwork
    with pytest.warns(DeprecationWarning, match=OLD_NETWORK):  # not kept in the module: each use warns
        exec("from fastgen.players.evaluators import Network", {})  # noqa: S102 - a fixed import
    assert "Network" not in evaluators.__all__ and "ReferenceNetwork" in evaluators.__all__
    assert "Network" not in vars(evaluators)
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        evaluators.Nope  # noqa: B018 - the module's __getattr__ answers only the old name
    # A network pickled under the old name (protocol 0 names the class in plain text)
    # still loads, as the same network, with the warning.
    net = evaluators.random_network(hidden=3, seed=2)
    blob = pickle.dumps(net, protocol=0)
    assert b"\nReferenceNetwork\n" in blob
    with pytest.warns(DeprecationWarning, match=OLD_NETWORK):
        back = pickle.loads(blob.replace(b"\nReferenceNetwork\n", b"\nNetwork\n"))
    assert isinstance(back, evaluators.ReferenceNetwork) and back.digest() == net.digest()


def test_no_warning_from_the_new_names():
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        for name in sorted(TOP_LEVEL):
            getattr(fastgen, name)
        for place, new in set(fastgen._MOVED_NAMES.values()):
            getattr(importlib.import_module(place), new)
        fastgen.parse_position_id("4HPwATDgc/ABMA")
        from fastgen.formats import fibs, svg  # noqa: F401
        from fastgen.games.board import Board  # noqa: F401
        from fastgen.players.evaluators import ReferenceNetwork, convert_network_file, random_network  # noqa: F401
        random_network(hidden=2).compiled()
