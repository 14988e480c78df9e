"""The public options objects at the front doors: a front door given one object plays
exactly what it plays given the same settings as keywords, keeps the object on its
result, refuses an object of the wrong kind and a setting given both ways, and the
verbs of their own (``rollout_cube``, ``duel_matches``) equal the deprecated flags."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import fastgen
from fastgen.analysis import AnalysisOptions, analyse
from fastgen.errors import InvalidArgumentError
from fastgen.sim import ClusterOptions, GameOptions, TrialOptions

MATCH = "tests/data/matches/gbf/test.mat"


def test_rollout_with_an_options_object_plays_the_same_games():
    by_words = fastgen.rollout(400, "pubeval", seed=7, threads=2, batch_size=64)
    opts = GameOptions(seed=7, threads=2, batch_size=64)
    by_object = fastgen.rollout(400, "pubeval", options=opts)
    assert np.array_equal(by_words.winner, by_object.winner) and np.array_equal(by_words.turns, by_object.turns)
    assert by_object.options is opts and by_words.options == opts


def test_duel_with_an_options_object_plays_the_same_games():
    a = fastgen.duel("pubeval", "random", 200, seed=3, engine="python")
    b = fastgen.duel("pubeval", "random", 200, options=GameOptions(seed=3, engine="python"))
    assert np.array_equal(a.winner, b.winner) and np.array_equal(a.result, b.result)
    assert b.options == GameOptions(seed=3, engine="python")


def test_rollout_plays_with_an_options_object_fills_the_same_table():
    opts = TrialOptions(trials=72, seed=4, quasi_random=False)
    a = fastgen.rollout_plays(fastgen.STARTING_BOARD, (3, 1), "baseline", plays=2,
                              trials=72, seed=4, quasi_random=False)
    b = fastgen.rollout_plays(fastgen.STARTING_BOARD, (3, 1), "baseline", plays=2, options=opts)
    assert [r.play for r in a.rows] == [r.play for r in b.rows]
    assert all(np.array_equal(x.samples, y.samples) for x, y in zip(a.rows, b.rows))
    assert b.options is opts and a.options == opts


def test_a_setting_given_both_ways_is_refused_naming_it():
    with pytest.raises(InvalidArgumentError, match=r"give seed in options or as a keyword, not both.*seed=8"):
        fastgen.rollout(10, "random", seed=8, options=GameOptions(seed=8))
    with pytest.raises(InvalidArgumentError, match=r"give trials, threads in options or as keywords"):
        fastgen.rollout_position(fastgen.STARTING_BOARD, "baseline", trials=36, threads=2,
                                 options=TrialOptions(trials=36))
    with pytest.raises(InvalidArgumentError, match=r"give workers in cluster"):
        fastgen.duel("random", "random", 10, workers=1, cluster=ClusterOptions(workers=1))


def test_an_options_object_of_the_wrong_kind_is_refused_quoting_it():
    with pytest.raises(InvalidArgumentError, match=r"options must be a fastgen.sim.TrialOptions or None, got "
                                                   r"GameOptions\(seed=1"):
        fastgen.rollout_plays(fastgen.STARTING_BOARD, (3, 1), "baseline", options=GameOptions(seed=1))
    with pytest.raises(InvalidArgumentError, match=r"options must be a fastgen.analysis.AnalysisOptions"):
        analyse(MATCH, options=TrialOptions())
    with pytest.raises(InvalidArgumentError, match=r"cluster must be a fastgen.sim.ClusterOptions or None, got 3"):
        fastgen.rollout(10, "random", cluster=3)


def test_options_replace_checks_the_copy():
    opts = TrialOptions(trials=72)
    assert opts.replace(seed=9) == TrialOptions(trials=72, seed=9) and opts.seed == 0
    with pytest.raises(InvalidArgumentError, match="trials must be"):
        opts.replace(trials=-1)
    with pytest.raises(InvalidArgumentError, match="plies must be"):
        AnalysisOptions().replace(plies=2)


def test_analysis_keeps_its_options_and_equals_the_keyword_call():
    by_words = analyse(MATCH, threads=2)
    by_object = analyse(MATCH, options=AnalysisOptions(threads=2))
    same = [json.dumps(a.to_dict() | {"seconds": 0}) for a in (by_words, by_object)]  # NaN equals NaN in text
    assert same[0] == same[1]
    assert by_object.options == AnalysisOptions(threads=2) == by_words.options
    assert "options" not in by_object.to_dict()  # the JSON of an analysis is unchanged


def test_the_match_duel_verb_equals_the_deprecated_flag():
    new = fastgen.duel_matches("baseline", "baseline", 4, 3, seed=5)
    with pytest.warns(DeprecationWarning, match=r"duel_matches\(a, b, N, L\)"):
        old = fastgen.duel("baseline", "baseline", matches=4, match_length=3, seed=5)
    assert np.array_equal(new.score, old.score) and np.array_equal(new.games, old.games)
    assert type(new) is type(old) is fastgen.sim.MatchDuelResult and new.options == GameOptions(seed=5)


def test_the_cubeful_rollout_verb_equals_the_deprecated_flag():
    board = fastgen.parse_position_id("4HPwATDgc/ABMA")
    new = fastgen.rollout_cube(board, "baseline", trials=36, seed=2)
    with pytest.warns(DeprecationWarning, match=r"rollout_cube\(board, evaluator, state\)"):
        old = fastgen.rollout_position(board, "baseline", cubeful=True, trials=36, seed=2)
    assert (new.no_double, new.double_take, new.action) == (old.no_double, old.double_take, old.action)
    assert new.options == TrialOptions(trials=36, seed=2)
    opts = TrialOptions(trials=36, seed=2)
    assert fastgen.rollout_cube(board, "baseline", options=opts).no_double == new.no_double


def test_the_new_verbs_give_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fastgen.duel_matches("baseline", "baseline", 2, 1, seed=1)
        fastgen.duel("random", "random", 10, seed=1)
