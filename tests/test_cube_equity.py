"""fastgen.cube without the program: the table files, the formulas' fixed points, the
action rules, bad input and the command line. (tests/test_cube_gnubg.py holds the
numbers to GNU Backgammon's own.)"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import fastgen
from fastgen.cli.main import main
from fastgen.cube import CubeAction, cube_action, cube_decisions, default_met, read_met
from fastgen.cube.decision import check_state, may_double, may_double_rule
from fastgen.cube.efficiency import (BEAROFF, BEAROFF2, CONTACT, GNUBG_1_07, RACE, CubeEfficiency, cube_life,
                                    gnubg_efficiency, position_class)
from fastgen.cube.match import Score, cash_points, dead_mwc
from fastgen.cube.met import MAX_AWAY
from fastgen.cube.met_files import parse_met
from fastgen.cube.money import CENTRED, OPPONENT, OWN, cubeful_equity, live_equity, money_decision
from fastgen.errors import InvalidCubeStateError, METFileError
from fastgen.sim.cubeplay import CubeTable, may_double as table_may_double

GNUBG_METS = "/usr/share/gnubg/met"


def _xml(pre_rows, post_rows=None, length=None, kind="explicit") -> str:
    length = len(pre_rows) if length is None else length
    rows = "".join("<row>" + "".join(f"<me>{v}</me>" for v in r) + "</row>" for r in pre_rows)
    post = post_rows or [[0.5] + [0.3] * (length - 1)]
    posts = "".join(f'<post-crawford-table type="explicit" player="{"both" if len(post) == 1 else i}">'
                    "<row>" + "".join(f"<me>{v}</me>" for v in r) + "</row></post-crawford-table>"
                    for i, r in enumerate(post))
    return (f"<met><info><name>t</name><description>d</description><length>{length}</length></info>"
            f'<pre-crawford-table type="{kind}">{rows}</pre-crawford-table>{posts}</met>')


def test_default_table_is_gnubgs_kazaross_xg2():
    met = default_met()
    assert met.name == "Kazaross XG2 25 point MET" and met.length == 25
    assert met.pre[0, 1] == pytest.approx(0.67736)  # the Crawford game, 1-away against 2-away
    assert met.post[0, 1] == pytest.approx(0.48803)  # post-Crawford, 2-away trailer
    assert met.mwc(7, 7) == pytest.approx(0.5)


def test_extension_beyond_the_file_mirrors_and_recurses():
    met = default_met()
    # every pair beyond the file: the two players' chances add to one
    i, j = np.triu_indices(MAX_AWAY, 1)
    outside = (i >= met.length) | (j >= met.length)
    assert np.allclose(met.pre[i[outside], j[outside]] + met.pre[j[outside], i[outside]], 1.0)
    # post-Crawford from the file's last entry on: the recursion (the file's own last value replaced)
    post = met.post[0]
    for t in range(met.length - 1, MAX_AWAY):
        assert post[t] == pytest.approx(0.5 * (0.25 * post[t - 4] + 0.75 * post[t - 2]))
    assert post[24] == pytest.approx(0.00118125)
    # a longer match is worse for the trailer, and 64 away is still a chance
    assert (np.diff(met.pre[:, 0]) < 0).all() and 0 < met.pre[63, 0] < 1e-3


@pytest.mark.skipif(not os.path.isdir(GNUBG_METS), reason=f"GNU Backgammon's tables not installed ({GNUBG_METS})")
def test_reads_every_explicit_table_gnubg_ships():
    read = 0
    for name in sorted(os.listdir(GNUBG_METS)):
        if not name.endswith(".xml") or name == "catalog.xml":
            continue
        path = os.path.join(GNUBG_METS, name)
        if 'type="explicit"' not in open(path).read():
            with pytest.raises(METFileError, match="parameters"):
                read_met(path)
            continue
        met = read_met(path)
        assert met.length >= 10 and 0.45 < met.mwc(1, 1, crawford=True) < 0.55, name  # jac100: player 0 a favourite
        read += 1
    assert read >= 8


def test_asymmetric_tables_answer_for_each_player():
    # length 3: the file's last post-Crawford value is recomputed, as gnubg does, so the test reads index 1
    met = read_met_from(_xml([[0.5, 0.7, 0.8], [0.2, 0.5, 0.6], [0.1, 0.3, 0.5]], [[0.5, 0.4, 0.3], [0.5, 0.45, 0.3]]))
    assert met.mwc(2, 1, player=0) == pytest.approx(0.4)   # post-Crawford: player 0 trailing
    assert met.mwc(2, 1, player=1) == pytest.approx(0.45)  # player 1 reads its own row
    assert met.mwc(1, 2, crawford=True, player=1) == pytest.approx(1 - 0.2)


def read_met_from(text):
    from fastgen.cube.met import MatchEquityTable

    return MatchEquityTable(parse_met(text))


@pytest.mark.parametrize("text, match", [
    ("<met>", "not an XML"),
    ("<table/>", "root element"),
    (_xml([[0.5, 0.7], [0.3, 0.5]], length=3), "must be 3 x 3"),
    (_xml([[0.5, 1.7], [0.3, 0.5]]), "outside"),
    (_xml([[0.5, "x"], [0.3, 0.5]]), "not a number"),
    (_xml([[0.5, 0.7], [0.3, 0.5]], kind="zadeh"), "parameters"),
    (_xml([[0.5, 0.7], [0.3, 0.5]], length=0), "from 1 to 64"),
])
def test_bad_table_files_raise_quoting_the_fault(text, match):
    with pytest.raises(METFileError, match=match):
        parse_met(text)


def test_missing_file_names_it(tmp_path):
    with pytest.raises(METFileError, match="nothere.xml"):
        read_met(tmp_path / "nothere.xml")


def test_position_classes_and_cube_life():
    start = fastgen.STARTING_BOARD
    race = np.zeros((2, 25), np.int8)
    race[1, 10], race[1, 2], race[0, 3] = 10, 5, 15   # mine on 11 and 3; the opponent's all home
    home = np.zeros((2, 25), np.int8)
    home[1, 0], home[0, 5] = 15, 15
    small = np.zeros((2, 25), np.int8)
    small[1, 0], small[0, 5] = 6, 3
    boards = np.stack([start, race, home, small])
    assert position_class(boards).tolist() == [CONTACT, RACE, BEAROFF, BEAROFF2]
    pips = 10 * 11 + 5 * 3
    assert cube_life(boards).tolist() == pytest.approx([0.68, min(0.7, 0.55 + 0.00125 * pips), 0.6, 0.6])
    short = race.copy()
    short[1] = 0
    short[1, 6] = 2   # 14 pips: the floor
    assert cube_life(short[None])[0] == pytest.approx(0.6)


def test_position_classes_equal_a_plain_loop():
    """The classes of many positions (games of mixed play, bear-offs, empty rows) against
    the rule walked point by point: each side's rearmost checker (the bar counts 25), a
    race when they can no longer meet, a bear-off when both are home, BEAROFF2 when
    neither has more than six checkers left."""
    from _gnubg_positions import mixed

    rng = np.random.default_rng(3)
    boards = [mixed(21, 60)]
    for _ in range(300):  # bear-offs and races with few checkers, some rows empty
        b = np.zeros((2, 25), np.int8)
        for side in range(2):
            for _ in range(int(rng.integers(0, 8))):
                b[side, int(rng.integers(0, 12))] += 1
        boards.append(b[None])
    arr = np.ascontiguousarray(np.concatenate(boards))

    def back(row):
        return max((k + 1 for k in range(25) if row[k]), default=0)

    want = []
    for b in arr:
        me, opp = back(b[1]), back(b[0])
        if me + opp > 25:
            want.append(CONTACT)
        elif me <= 6 and opp <= 6:
            want.append(BEAROFF2 if max(int(b[0].sum()), int(b[1].sum())) <= 6 else BEAROFF)
        else:
            want.append(RACE)
    got = position_class(arr)
    assert got.tolist() == want
    assert {CONTACT, RACE, BEAROFF, BEAROFF2} <= set(got.tolist())


def test_gnubg_108_cube_life_at_0_and_1_ply_and_107_from_2():
    race = np.zeros((2, 25), np.int8)
    race[1, 8], race[1, 2], race[1, 3], race[0, 3] = 1, 9, 5, 15  # 9 + 27 + 20 = 56 pips for the side on roll
    long_race = np.zeros((2, 25), np.int8)
    long_race[1, 19], long_race[0, 3] = 15, 15  # 300 pips: the ceiling
    home = np.zeros((2, 25), np.int8)
    home[1, 0], home[0, 5] = 15, 15
    boards = np.stack([fastgen.STARTING_BOARD, race, long_race, home])
    new = gnubg_efficiency("1.08", plies=1)
    assert cube_life(boards, efficiency=new).tolist() == pytest.approx([0.76, 0.60 + 0.0025 * 56, 0.80, 0.60])
    for plies in (2, 3):  # 1.08 keeps 1.07's constants from 2 plies on
        assert gnubg_efficiency("1.08", plies=plies) is GNUBG_1_07
    assert gnubg_efficiency("1.07", plies=0) is GNUBG_1_07 and gnubg_efficiency() is GNUBG_1_07
    assert cube_life(boards).tolist() == cube_life(boards, efficiency=GNUBG_1_07).tolist()


def test_cube_decisions_use_the_efficiency_given():
    probs = np.array([[0.70, 0.20, 0.01, 0.08, 0.005]])
    board = fastgen.STARTING_BOARD[None]
    for eff, x in ((None, 0.68), (gnubg_efficiency("1.08", plies=0), 0.76),
                   (CubeEfficiency("mine", 0.5, 0.0, 0.5, 0.5, 0.5, 0.5), 0.5)):
        d = cube_decisions(board, probs, efficiency=eff).decision(0)
        nd, dt, dp = money_decision(probs, x, CENTRED)  # the money formulas at that cube life
        assert d.cube_life == pytest.approx(x)
        assert (d.no_double, d.double_take, d.double_pass) == pytest.approx((nd[0], dt[0], dp[0]))


@pytest.mark.parametrize("bad", [{"version": "1.09"}, {"plies": -1}, {"plies": 1.5}, {"plies": True}])
def test_gnubg_efficiency_refuses_what_it_does_not_know(bad):
    with pytest.raises(InvalidCubeStateError, match=repr(next(iter(bad.values()))).replace(".", r"\.")):
        gnubg_efficiency(**bad)
    with pytest.raises(InvalidCubeStateError, match="efficiency must be .*got 0.76"):
        cube_decisions(fastgen.STARTING_BOARD[None], np.array([[0.5, 0.1, 0.0, 0.1, 0.0]]), efficiency=0.76)


def test_money_live_cube_passes_through_take_and_cash_points():
    # no gammons: W = L = 1, take point 0.2, cash point 0.8 (Janowski)
    p = np.array([0.0001, 0.2, 0.5, 0.8, 0.9999])
    probs = np.stack([p, 0 * p, 0 * p, 0 * p, 0 * p], axis=1)
    assert live_equity(probs, CENTRED)[1:4] == pytest.approx([-1.0, 0.0, 1.0])
    assert live_equity(probs, OWN)[3] == pytest.approx(1.0)
    assert live_equity(probs, OPPONENT)[1] == pytest.approx(-1.0)
    # x = 0: the dead cube, the cubeless equity; x = 1: the live one
    assert cubeful_equity(probs, 0.0, CENTRED) == pytest.approx(2 * p - 1)
    assert cubeful_equity(probs, 1.0, CENTRED)[2] == pytest.approx(0.0)
    # at the cash point with no gammons, a double gains whatever the answer
    assert cube_action(fastgen.STARTING_BOARD, [0.8, 0, 0, 0, 0]).doubles


def test_gammons_and_the_jacoby_rule():
    probs = [0.827, 0.313, 0.012, 0.034, 0.0]
    plain = cube_action(fastgen.STARTING_BOARD, probs)
    jacoby = cube_action(fastgen.STARTING_BOARD, probs, fastgen.MatchState(jacoby=True))
    # the figures GNU Backgammon printed for these probabilities (a contact position, 0-ply)
    # (printed to 3 decimals, from probabilities printed to 3 decimals: within 1e-3)
    assert jacoby.no_double == pytest.approx(0.889, abs=1e-3) and jacoby.double_take == pytest.approx(1.773, abs=1e-3)
    assert jacoby.action is CubeAction.DOUBLE_PASS
    assert plain.action is CubeAction.TOO_GOOD_PASS and plain.no_double > plain.double_pass


def test_match_play_at_2_away_4_away_gnubgs_example():
    state = fastgen.MatchState(match_length=7, score=(2, 4), on_roll=1)   # on roll: 3 away, opponent 5 away
    d = cube_action(fastgen.STARTING_BOARD, [0.827, 0.313, 0.012, 0.034, 0.0], state)
    assert d.no_double == pytest.approx(0.7517, abs=5e-4) and d.double_pass == pytest.approx(0.7436, abs=5e-4)
    assert d.double_take == pytest.approx(0.8013, abs=5e-4)
    assert d.action is CubeAction.TOO_GOOD_PASS and not d.doubles and not d.takes


def test_dead_cube_mwc_is_the_results_weighted_by_their_chances():
    met = default_met()
    score = Score(met, 5, 3, crawford=False, player=1)
    probs = np.array([[0.6, 0.2, 0.05, 0.1, 0.01]])
    p, wg, wb, lg, lb = probs[0]
    direct = ((p - wg) * score.win(1) + (wg - wb) * score.win(2) + wb * score.win(3)
              + (1 - p - lg) * score.lose(1) + (lg - lb) * score.lose(2) + lb * score.lose(3))
    assert dead_mwc(score, probs, 1)[0] == pytest.approx(direct)
    tg, otg = cash_points(score, probs, 1)
    assert 0 < otg[0] < tg[0] < 1


def test_who_may_double():
    probs = [0.7, 0.2, 0.01, 0.05, 0.0]
    b = fastgen.STARTING_BOARD
    cannot = [
        fastgen.MatchState(cube_value=2, cube_owner=0, on_roll=1),                          # money, the opponent's cube
        fastgen.MatchState(match_length=7, score=(6, 4), crawford=True, on_roll=1),           # Crawford game
        fastgen.MatchState(match_length=7, score=(4, 6), on_roll=1),                          # post-Crawford leader
        fastgen.MatchState(match_length=7, score=(3, 5), cube_value=2, cube_owner=1, on_roll=1),  # the cube wins it
    ]
    for st in cannot:
        d = cube_action(b, probs, st)
        assert d.action is CubeAction.CANNOT_DOUBLE and np.isnan(d.double_take) and not d.doubles, st
        assert 0 <= d.no_double <= (1 if st.match_length else 3)
    trailer = cube_action(b, probs, fastgen.MatchState(match_length=7, score=(6, 3), on_roll=1))
    assert trailer.action is not CubeAction.CANNOT_DOUBLE   # post-Crawford trailer: doubles at once
    owned = cube_action(b, probs, fastgen.MatchState(cube_value=2, cube_owner=1, on_roll=1))
    assert "edouble" in owned.action.value or owned.action is CubeAction.NO_DOUBLE_BEAVER


def _small_states():
    """Every checked state of small money and match games: scores, Crawford, owners,
    cube values and caps."""
    cubes = (1, 2, 4, 8, 16)
    for max_cube in (1, 2, 4, 16):
        for cube in (c for c in cubes if c <= max_cube):
            for owner in (None, 0, 1):
                if cube == 1 and owner is not None:
                    continue
                for on_roll in (0, 1):
                    yield fastgen.MatchState(cube_value=cube, cube_owner=owner, on_roll=on_roll, max_cube=max_cube)
                    for length in range(1, 6):
                        for a in range(length):
                            for b in range(length):
                                for crawford in (False, True):
                                    try:
                                        yield check_state(fastgen.MatchState(
                                            match_length=length, score=(a, b), crawford=crawford, cube_value=cube,
                                            cube_owner=owner, on_roll=on_roll, max_cube=max_cube))
                                    except InvalidCubeStateError:
                                        pass


def test_the_vectorised_may_double_rule_agrees_with_may_double():
    states = list(_small_states())
    assert len(states) > 1000
    expected = np.array([may_double(st) for st in states])
    assert expected.any() and not expected.all()
    owners = np.array([OPPONENT if st.cube_owner is not None and st.cube_owner != st.on_roll else OWN
                       for st in states])
    aways = np.array([(st.match_length - st.score[st.on_roll], st.match_length - st.score[1 - st.on_roll])
                      if st.match_length else (0, 0) for st in states])
    rule = may_double_rule(np.array([st.cube_value for st in states]), np.array([st.max_cube for st in states]),
                           owners == OPPONENT, aways[:, 0], aways[:, 1], np.array([st.crawford for st in states]))
    np.testing.assert_array_equal(rule, expected)
    # the game loops' form: one table of games per match length and cap
    groups: dict = {}
    for i, st in enumerate(states):
        groups.setdefault((st.match_length, st.max_cube), []).append(i)
    for (length, max_cube), rows in groups.items():
        group = [states[i] for i in rows]
        n = len(group)
        t = CubeTable(n, fastgen.STARTING_BOARD[None], np.zeros(n, dtype=np.int8), np.zeros(n, dtype=np.int64))
        t.on_roll[:] = [st.on_roll for st in group]
        t.owner[:] = [-1 if st.cube_owner is None else st.cube_owner for st in group]
        t.cube[:] = [st.cube_value for st in group]
        live = np.arange(n)
        score = np.array([st.score for st in group])
        crawford = np.array([st.crawford for st in group])
        np.testing.assert_array_equal(table_may_double(t, live, max_cube, length, score, crawford), expected[rows])


def test_batch_equals_one_by_one():
    rng = np.random.default_rng(5)
    p = rng.uniform(0.05, 0.95, 64)
    wg = p * rng.uniform(0, 0.4, 64)
    lg = (1 - p) * rng.uniform(0, 0.4, 64)
    probs = np.stack([p, wg, wg * 0.1, lg, lg * 0.1], axis=1)
    boards = np.stack([fastgen.STARTING_BOARD] * 64)
    for state in (None, fastgen.MatchState(match_length=5, score=(1, 3), on_roll=0)):
        batch = cube_decisions(boards, probs, state)
        for i in (0, 17, 63):
            one = cube_action(boards[i], probs[i], state)
            assert one == batch.decision(i)


@pytest.mark.parametrize("probs, match", [
    ([0.5, 0.1, 0.0, 0.1], r"\(1, 5\)"),
    ([0.5, 0.6, 0.0, 0.1, 0.0], "not five cubeless probabilities"),
    ([0.5, 0.1, 0.2, 0.1, 0.0], "not five cubeless probabilities"),
    ([float("nan"), 0, 0, 0, 0], "not five cubeless probabilities"),
])
def test_bad_probabilities_raise_quoting_them(probs, match):
    with pytest.raises(InvalidCubeStateError, match=match):
        cube_action(fastgen.STARTING_BOARD, probs)


def test_bad_state_and_arguments_raise():
    b, probs = fastgen.STARTING_BOARD, [0.5, 0.1, 0.0, 0.1, 0.0]
    with pytest.raises(InvalidCubeStateError, match="MatchState"):
        cube_action(b, probs, {"match_length": 7})
    with pytest.raises(InvalidCubeStateError, match="exactly one"):
        cube_action(b)
    with pytest.raises(InvalidCubeStateError, match="MatchEquityTable"):
        cube_action(b, probs, fastgen.MatchState(match_length=7), met="Kazaross")
    with pytest.raises(InvalidCubeStateError, match="two-sided"):
        cube_action(b, probs, database="gnubg_ts0.bd")
    assert issubclass(InvalidCubeStateError, ValueError) and issubclass(METFileError, ValueError)


def test_an_evaluator_gives_the_probabilities():
    from fastgen.players import evaluators

    ev = evaluators.baseline()
    d = cube_action(fastgen.STARTING_BOARD, evaluator=ev)
    assert d.probs == pytest.approx(tuple(np.asarray(ev(fastgen.STARTING_BOARD[None]), dtype=np.float64)[0]))
    assert d.action is CubeAction.NO_DOUBLE_BEAVER   # money, beavers allowed: the opening position


def test_command_line(capsys):
    assert main(["cube", "--position", "4HPwATDgc/ABMA", "--probs", "0.52151", "0.15392", "0.00756", "0.12985",
                 "0.00755", "--jacoby"]) == 0
    out = capsys.readouterr().out
    assert "1. No double            +0.0843" in out and "Proper cube action: No double, beaver" in out
    assert "2. Double, pass         +1.00000  (+0.91" in out  # ranked as gnubg ranks them, with the cost
    assert main(["cube", "--position", "4HPwATDgc/ABMA", "--match", "7", "--score", "4-2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["match"] and 0 < data["no_double"] < 1 and data["action"] in {a.value for a in CubeAction}
    assert main(["cube", "--position", "4HPwATDgc/ABMA", "--match", "7", "--score", "7-2"]) == 2
    assert "points away" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["cube", "--position", "4HPwATDgc/ABMA", "--score", "four-two"])
    assert main(["cube", "--position", "4HPwATDgc/ABMA", "--plies", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["action"].startswith("No double")
    assert main(["cube", "--position", "4HPwATDgc/ABMA", "--plies", "1", "--probs", "0.5", "0.1", "0", "0.1", "0"]) == 2


def test_gammons_that_cannot_happen_count_nothing():
    board = np.zeros((2, 25), np.int8)
    board[1, :6], board[0, :3] = 2, 4          # both sides bearing off: the opponent has 3 off, the side on roll 3
    with_trace = cube_action(board, [0.7, 0.3, 0.1, 0.2, 0.05])
    clean = cube_action(board, [0.7, 0.0, 0.0, 0.0, 0.0])
    assert with_trace.probs == clean.probs and with_trace.action is clean.action


@pytest.mark.parametrize("mine, win_rolls", [
    ({5: 2}, [(6, 6), (3, 3), (4, 4), (5, 5)]),           # two on the 6-point: doubles of 3 or more
    ({0: 1, 1: 1}, "all"),                                  # two on the 1- and 2-points: any roll
    ({4: 1}, None),                                         # one on the 5-point: rolls counted from the plays
])
def test_one_ply_is_exact_on_the_last_roll(mine, win_rolls):
    """The opponent bears off on its next roll whatever it throws, so the side on roll
    wins exactly when this roll bears its checkers off: at 1 ply no double is 2p - 1 and
    double/take twice that, whatever the evaluator thinks (counted here by hand, and
    checked against the generator's plays)."""
    board = np.zeros((2, 25), np.int8)
    for point, n in mine.items():
        board[1, point] = n
    board[0, 0] = 2
    wins = 0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            plays = fastgen.legal_plays(board, (d1, d2))
            wins += any(b[1].sum() == 0 for b in plays.boards)
    if isinstance(win_rolls, list):
        assert wins == sum(2 if a != b else 1 for a, b in win_rolls)
    elif win_rolls == "all":
        assert wins == 36
    p = wins / 36
    d = cube_action(board, evaluator=fastgen.players.evaluators.baseline(), plies=1)
    assert d.no_double == pytest.approx(2 * p - 1) and d.double_take == pytest.approx(2 * (2 * p - 1))


def test_one_ply_needs_an_evaluator_and_stays_near_zero_ply():
    b = fastgen.STARTING_BOARD
    with pytest.raises(InvalidCubeStateError, match="evaluator"):
        cube_action(b, [0.5, 0.1, 0.0, 0.1, 0.0], plies=1)
    with pytest.raises(InvalidCubeStateError, match="plies"):
        cube_action(b, evaluator=fastgen.players.evaluators.baseline(), plies=2)
    ev = fastgen.players.evaluators.baseline()
    zero, one = cube_action(b, evaluator=ev), cube_action(b, evaluator=ev, plies=1)
    assert abs(zero.no_double - one.no_double) < 0.05 and one.action.value.startswith("No double")


def test_classes_given_equal_classes_computed():
    boards = np.stack([fastgen.STARTING_BOARD, fastgen.STARTING_BOARD[::-1]])
    probs = np.array([[0.5, 0.15, 0.01, 0.13, 0.01], [0.6, 0.2, 0.01, 0.1, 0.01]])
    given = cube_decisions(boards, probs, classes=position_class(boards))
    assert np.array_equal(given.equities, cube_decisions(boards, probs).equities)
    with pytest.raises(InvalidCubeStateError, match="classes"):
        cube_decisions(boards, probs, classes=np.zeros(3))
