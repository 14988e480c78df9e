"""Money duels with the doubling cube: ``duel(a, b, games, cube=True)`` and cube players."""

from __future__ import annotations

import numpy as np
import pytest

import fastgen
from fastgen.players import evaluators
from fastgen.errors import InvalidArgumentError
from fastgen.players.policies import CubePolicy, cube_policy


class Fixed(CubePolicy):
    """The baseline's plays with a fixed cube rule."""

    def __init__(self, doubles: bool, takes: bool) -> None:
        super().__init__(evaluators.baseline(), name=f"fixed({doubles}, {takes})")
        self.doubles, self.takes = doubles, takes

    def offer(self, boards, owns, states=None):
        return np.full(len(boards), self.doubles)

    def accept(self, boards, owns, states=None):
        return np.full(len(boards), self.takes)


def test_a_pass_ends_the_game_at_the_cube_before_the_double():
    # nobody doubles before the opening roll (R16): the first mover plays it; then the
    # other side doubles at once and the first passes: one point to the second mover
    d = fastgen.duel(Fixed(True, False), Fixed(True, False), 40, seed=3, cube=True)
    assert (d.result == 1).all() and (d.cube == 1).all() and (d.turns == 1).all()
    assert (d.winner == 1 - np.arange(40) % 2).all()  # a moves first in the even games
    assert d.ppg == 0.0
    # from a given position the side on roll is before its roll: it may double at once
    s = fastgen.duel(Fixed(True, False), Fixed(True, False), 40, seed=3, cube=True, start=fastgen.STARTING_BOARD)
    assert (s.turns == 0).all() and (s.winner == np.arange(40) % 2).all()


def test_doubles_and_takes_stop_at_max_cube():
    d = fastgen.duel(Fixed(True, True), Fixed(True, True), 20, seed=4, cube=True, max_cube=16)
    assert (d.cube == 16).all()
    assert np.array_equal(d.points, np.where(d.winner == 0, 1, -1) * d.result * 16.0)


def test_self_duel_mirrored_is_level_and_cube_values_are_powers_of_two():
    d = fastgen.duel("baseline", "baseline", 400, seed=5, cube=True)
    assert d.ppg == 0.0   # mirrored: the same player on both seats plays the same games
    assert set(np.unique(d.cube)) <= {1, 2, 4, 8, 16, 32, 64} and (d.cube > 1).any()
    assert d.to_dict()["cube"] and d.to_dict()["average_cube"] > 1


def test_cube_decisions_beat_never_doubling_and_always_taking():
    # 2,000 mirrored games, seed 6: the cube player gains from its doubles and its passes.
    # The margin is three standard errors of the pair means (about 0.05 ppg here).
    d = fastgen.duel(cube_policy(evaluators.baseline()), Fixed(False, True), 2000, seed=6, cube=True)
    assert d.ppg - 3 * d.ppg_se > 0, (d.ppg, d.ppg_se)


def test_players_without_cube_decisions_are_refused():
    with pytest.raises(InvalidArgumentError, match="cube player"):
        fastgen.duel("pubeval", "baseline", 10, cube=True)
    with pytest.raises(InvalidArgumentError, match="cube must be True or False"):
        fastgen.duel("baseline", "baseline", 10, cube="yes")
    with pytest.raises(InvalidArgumentError, match="max_cube"):
        fastgen.duel("baseline", "baseline", 10, cube=True, max_cube=1)


def test_the_cube_protocol_of_an_evaluators_player():
    p = cube_policy(evaluators.baseline())
    start = np.stack([fastgen.STARTING_BOARD])
    assert not p.offer(start, [False])[0] and p.accept(start, [False])[0]
    crushing = np.zeros((1, 2, 25), np.int8)
    crushing[0, 1, 0], crushing[0, 0, 20] = 1, 15   # one checker left against fifteen far away: a sure gammon
    assert not p.offer(crushing, [False])[0] and not p.accept(crushing, [False])[0]   # too good to double, pass
    sure = np.zeros((1, 2, 25), np.int8)
    sure[0, 1, :2], sure[0, 0, 3] = 1, 10             # off next roll, the opponent has five off: no gammon
    assert p.offer(sure, [False])[0] and not p.accept(sure, [False])[0]               # double, pass


def test_command_line_duel_with_the_cube(capsys):
    import json

    from fastgen.cli.main import main

    assert main(["duel", "baseline", "baseline", "--games", "20", "--cube", "--max-cube", "8", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["cube"] and out["games"] == 20 and out["ppg"] == 0.0 and out["average_cube"] <= 8
    assert main(["duel", "pubeval", "baseline", "--games", "20", "--cube"]) == 2
    assert "cube player" in capsys.readouterr().err
    assert main(["duel", "baseline", "baseline", "--matches", "4", "--match-length", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["matches"] == 4 and out["match_length"] == 3 and out["mwc"] == 0.5


def test_command_line_writes_the_matches_as_mat_files(capsys, tmp_path):
    from fastgen.cli.main import main

    folder = tmp_path / "out"
    assert main(["duel", "baseline", "baseline", "--matches", "4", "--match-length", "3",
                 "--seed", "14", "--mat", str(folder)]) == 0
    capsys.readouterr()
    files = sorted(folder.iterdir())
    expected = fastgen.duel_matches("baseline", "baseline", 4, 3, seed=14, records=True)
    assert [f.name for f in files] == [f"match-{i:05d}.mat" for i in range(1, 5)]
    for i, f in enumerate(files):
        assert fastgen.formats.read_mat(f).score == tuple(expected.score[i])
    assert main(["duel", "baseline", "baseline", "--games", "4", "--cube", "--mat", str(folder)]) == 2
    assert "--mat writes the matches of --matches" in capsys.readouterr().err
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["duel", "baseline", "baseline", "--matches", "2", "--mat", str(blocker / "sub")]) == 1
    assert "cannot write the .mat files" in capsys.readouterr().err


class Recorder(Fixed):
    """Always doubles and takes, and keeps every state it was asked about."""

    def __init__(self, doubles: bool = True) -> None:
        super().__init__(doubles, True)
        self.offered: list = []

    def offer(self, boards, owns, states=None):
        self.offered.extend(states)
        return super().offer(boards, owns, states)


@pytest.mark.parametrize("doubles", [True, False])
def test_matches_keep_the_crawford_rule_and_the_dead_cube(doubles):
    a, b = Recorder(doubles), Recorder(doubles)
    r = fastgen.duel_matches(a, b, 40, 5, seed=8)
    assert r.matches == 40 and ((r.score.max(axis=1) >= 5) & (r.score.min(axis=1) < 5)).all()
    assert np.array_equal(r.winner, np.argmax(r.score, axis=1))
    offered = a.offered + b.offered
    assert offered
    for st in offered:
        away = 5 - st.score[st.on_roll]
        other = 5 - st.score[1 - st.on_roll]
        assert not st.crawford                        # no cube in the Crawford game
        assert st.cube_value < away                   # a cube that already wins the match is dead
        assert not (min(away, other) == 1 and away == 1)   # the post-Crawford leader never doubles
        assert st.cube_owner in (None, st.on_roll)
    assert {st.cube_value for st in offered} <= ({1, 2, 4} if doubles else {1})
    if not doubles:  # no cube: matches go game by game through their Crawford game to post-Crawford ones
        assert any(min(5 - st.score[0], 5 - st.score[1]) == 1 for st in offered)


def test_mirrored_self_matches_are_level():
    r = fastgen.duel_matches("baseline", "baseline", 20, 3, seed=9)
    assert r.mwc == 0.5 and r.to_dict()["matches"] == 20 and "match-winning chance" in str(r)


def test_match_arguments_are_checked():
    with pytest.raises(InvalidArgumentError, match="not both"), pytest.warns(DeprecationWarning, match="duel_matches"):
        fastgen.duel("baseline", "baseline", 10, matches=10, match_length=7)
    with pytest.raises(InvalidArgumentError, match="go together"), pytest.warns(DeprecationWarning):
        fastgen.duel("baseline", "baseline", matches=10)
    with pytest.raises(InvalidArgumentError, match="match_length"):
        fastgen.duel_matches("baseline", "baseline", 10, 65)
    with pytest.raises(InvalidArgumentError, match="even"):
        fastgen.duel_matches("baseline", "baseline", 9, 3)


def test_match_duel_records_rebuild_every_match_under_the_rules():
    # Every game of every match is replayed through fastgen.Match / fastgen.Game, which
    # check each roll, play, double, take and pass against the rules (an illegal one
    # raises); the rebuilt matches must end as the duel says and survive a .mat round trip.
    r = fastgen.duel_matches("baseline", Fixed(True, True), 16, 5, seed=10, records=True, max_cube=16)
    cubes, drops, crawford = set(), 0, 0
    for i in range(r.matches):
        m = r.match(i)
        assert m.over and m.winner == r.winner[i] and m.score == tuple(r.score[i]) and len(m.games) == r.games[i]
        assert m.names == ("baseline", "fixed(True, True)")
        back = fastgen.formats.read_mat(fastgen.write_mat(m))
        assert back.score == m.score and [g.record for g in back.games] == [g.record for g in m.games]
        cubes |= {g.cube_value for g in m.games}
        drops += sum(g.dropped for g in m.games)
        crawford += sum(g.crawford for g in m.games)
    assert max(cubes) >= 4 and drops and crawford   # the cube went up, passes and Crawford games were played


def test_money_duel_records_rebuild_every_game():
    d = fastgen.duel("baseline", Fixed(True, False), 40, seed=11, cube=True, records=True)
    for i in range(d.games):
        g = d.game(i)
        assert g.over and g.winner == d.winner[i] and g.cube_value == d.cube[i] and g.turns == d.turns[i]
        assert g.points * (1 if g.winner == 0 else -1) == d.points[i]
    assert any(d.game(i).dropped for i in range(d.games))


def test_records_arguments_are_checked():
    with pytest.raises(InvalidArgumentError, match="opening position"):
        fastgen.duel("baseline", "baseline", 4, cube=True, records=True, start=fastgen.STARTING_BOARD)
    with pytest.raises(InvalidArgumentError, match="records are kept for duels with the cube"):
        fastgen.duel("baseline", "baseline", 4, records=True)
    with pytest.raises(InvalidArgumentError, match="no records"):
        fastgen.duel_matches("baseline", "baseline", 2, 1).match(0)
    with pytest.raises(InvalidArgumentError, match="power of two"):
        fastgen.duel("baseline", "baseline", 4, cube=True, max_cube=24)
