"""Match analysis (fastgen.analysis): every record held to a plain loop over the match.

The reference below walks each game with fastgen.Game, lists each roll's plays with
fastgen.legal_plays one position at a time, and values each play, roll and cube
decision with its own calls to the evaluator and to fastgen.cube.cube_decisions on one
board each: none of the analysis's batching, grouping by score or indexing. The
analysis must give the same records to 1e-9.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import fastgen
from fastgen.players import evaluators
from fastgen.analysis import analyse
from fastgen.core.boards import DISTINCT_ROLLS, ROLL_CHANCES
from fastgen.core.state import MatchState
from fastgen.cube import cube_decisions, default_met
from fastgen.cube.match import Score
from fastgen.errors import InvalidArgumentError
from fastgen.games.game import result_types
from fastgen.players.policies import CubePolicy

EVAL = evaluators.baseline()
#: The reference recomputes the luck of every opening roll and of every 8th turn (each
#: one is 21 rolls' plays valued one board at a time).
LUCK_EVERY = 8


class Eager(CubePolicy):
    """The baseline's plays, every double made and taken: cube errors to find."""

    def __init__(self):
        super().__init__(EVAL, name="Eager")

    def offer(self, boards, owns, states=None):
        return np.ones(len(boards), dtype=bool)

    def accept(self, boards, owns, states=None):
        return np.ones(len(boards), dtype=bool)


def _state(match, gi, game, on_roll):
    return MatchState(match_length=match.length, score=match.scores_before(gi), cube_value=game.cube_value,
                      cube_owner=game.cube_owner, crawford=game.crawford, jacoby=game.jacoby, on_roll=on_roll,
                      max_cube=max(game.cube_cap, 1024))


def _flip(st):
    return MatchState(match_length=st.match_length, score=st.score, cube_value=st.cube_value,
                      cube_owner=st.cube_owner, crawford=st.crawford, jacoby=st.jacoby, on_roll=1 - st.on_roll,
                      max_cube=st.max_cube)


def _after_value(after, st, probs=None):
    """The mover's normalised cubeful equity of one board after its play, one at a time
    (*probs*: the opponent's, if already known)."""
    res = int(result_types(after[None])[0])
    if res:
        if not st.match_length:
            return float(res)
        me = st.on_roll
        score = Score(default_met(), st.match_length - st.score[me], st.match_length - st.score[1 - me],
                      crawford=st.crawford, player=me)
        return float(score.equity(score.win(res * st.cube_value), st.cube_value))
    opp = np.ascontiguousarray(after[::-1])[None]
    nd, dt, dp = cube_decisions(opp, EVAL(opp) if probs is None else probs, _flip(st)).equities[0]
    doubles = not np.isnan(dt) and dt >= nd and dp >= nd  # the opponent doubles where it gains
    return -float(min(dt, dp) if doubles else nd)


def _roll_best(board, dice, st):
    plays = fastgen.legal_plays(board, dice)
    values = [_after_value(plays.boards[k], st) for k in range(len(plays))]
    return plays, values


def _reference(match):
    """(moves, cubes): per roll (game, move, player, error, best board, luck), per cube decision
    (game, player, kind, error) by plain loops."""
    moves, cubes = [], []
    for gi, original in enumerate(match.games):
        replay = fastgen.Match(match.length, names=match.names, cube_cap=match.cube_cap)
        for g in match.games[:gi]:
            replay.new_game().apply(g.record)
        game = replay.new_game()
        move, doubled, pending = 0, False, None
        for action in original.record:
            if action.kind in ("opening", "roll"):
                move += 1
                if action.kind == "roll" and not doubled and game.may_double:
                    st = _state(replay, gi, game, game.turn)
                    d = cube_decisions(game.board[None], EVAL(game.board[None]), st)
                    if not np.isnan(d.equities[0, 1]):
                        nd, dt, dp = d.equities[0]
                        cubes.append((gi, game.turn, "no double", nd - max(nd, min(dt, dp))))
                game.apply([action])
                st = _state(replay, gi, game, game.turn)
                board = game.board
                plays, values = _roll_best(board, game.dice, st)
                if action.kind != "opening" and move % LUCK_EVERY:
                    avg = None  # the luck of the other rolls is not recomputed here (time)
                elif action.kind == "opening":
                    avg = 0.0
                    for r in DISTINCT_ROLLS:
                        if r[0] != r[1]:
                            avg += max(_roll_best(board, tuple(r), st)[1]) / 30
                            avg -= max(_roll_best(board, tuple(r), _flip(st))[1]) / 30
                else:
                    avg = sum(w * max(_roll_best(board, tuple(r), st)[1]) for r, w in zip(DISTINCT_ROLLS, ROLL_CHANCES))
                luck = None if avg is None else max(values) - avg
                moves.append([gi, move, game.turn, None, plays.boards[int(np.argmax(values))], luck, values, plays])
                doubled = False
            elif action.kind == "play":
                rec = moves[-1]
                after = np.frombuffer(action.data, dtype=np.int8).reshape(2, 25)
                k = int(np.flatnonzero((rec[7].boards == after).all(axis=(1, 2)))[0])
                rec[3] = rec[6][k] - max(rec[6]) if len(rec[6]) > 1 else 0.0
                game.apply([action])
            else:
                if action.kind == "double":
                    pending = _state(replay, gi, game, game.turn), game.board
                    doubled = True
                st_board = pending
                game.apply([action])
                if action.kind in ("double", "take", "drop"):
                    st, board = st_board
                    d = cube_decisions(board[None], EVAL(board[None]), st)
                    nd, dt, dp = d.equities[0]
                    if np.isnan(dt):
                        continue
                    if action.kind == "double":
                        cubes.append((gi, action.player, "double", min(dt, dp) - max(nd, min(dt, dp))))
                    else:
                        mine = -dt if action.kind == "take" else -dp
                        cubes.append((gi, action.player, "take" if action.kind == "take" else "pass",
                                      mine - max(-dt, -dp)))
    return moves, cubes


@pytest.fixture(scope="module")
def matches():
    # two 3-point matches between the baseline and a player that doubles and takes
    # everything (cube errors), and a money session of one game
    r = fastgen.duel_matches("baseline", Eager(), 2, 3, seed=31, records=True)
    money = fastgen.duel("baseline", Eager(), 2, seed=32, cube=True, records=True)
    session = fastgen.Match(0, names=("A", "B"))
    session.new_game().apply(money.game(1).record)
    return [r.match(0), session, r.match(1)]


def test_every_record_equals_the_plain_loop(matches):
    for m in matches[:2]:
        a = analyse(m, EVAL, database=None)
        ref_moves, ref_cubes = _reference(m)
        got = a.moves
        assert len(got) == len(ref_moves)
        for rec, (gi, move, player, error, best, luck, values, _) in zip(got, ref_moves):
            assert (rec.game, rec.move, rec.player) == (gi, move, player)
            if luck is not None:
                assert rec.luck == pytest.approx(luck, abs=1e-9)
            assert rec.best_equity == pytest.approx(max(values), abs=1e-9)
            if error is not None:
                assert rec.error == pytest.approx(min(error, 0.0), abs=1e-9)
                assert rec.forced == (len(values) == 1)
        got_cubes = [(c.game, c.player, c.kind, c.error) for c in a.cube_decisions]
        assert [c[:3] for c in got_cubes] == [c[:3] for c in ref_cubes]
        np.testing.assert_allclose([c[3] for c in got_cubes], [min(c[3], 0.0) for c in ref_cubes], atol=1e-9)
    cubes = [c for m in matches[:2] for c in analyse(m, EVAL).cube_decisions]
    assert any(c.kind == "take" and c.error < 0 for c in cubes) or any(c.kind == "double" and c.error < 0
                                                                         for c in cubes)


def test_totals_add_up_the_records(matches):
    a = analyse(matches[0], "baseline")
    for p in a.players:
        mine = [d for d in a.moves if d.player == p.player]
        unforced = [d for d in mine if not d.forced and d.played is not None]
        assert p.unforced_moves == len(unforced) and p.rolls == len(mine)
        assert p.chequer_error == pytest.approx(sum(d.error for d in unforced))
        assert p.luck == pytest.approx(sum(d.luck for d in mine))
        assert p.chequer_error_rate == pytest.approx(1000 * p.chequer_error / p.unforced_moves)
        cubes = [d for d in a.cube_decisions if d.player == p.player]
        assert p.cube_decisions == len(cubes) and p.cube_error == pytest.approx(sum(d.error for d in cubes))
    assert all(d.error <= 0 for d in a.decisions)
    assert all(d.mark is None for d in a.moves if d.error >= -0.03)
    assert all(d.mark == "very bad" for d in a.moves if d.error < -0.12 and not d.forced)
    assert str(a).splitlines()[2].split() == ["Player", "baseline", "Eager"]


def test_money_points_per_game_and_their_intervals(matches):
    # a money session of four games (the cube in play), each game's points read from the
    # match itself, the interval a plain numpy mean and sample standard deviation
    money = fastgen.duel("baseline", Eager(), 4, seed=33, cube=True, records=True)
    session = fastgen.Match(0, names=("A", "B"))
    for g in range(4):
        session.new_game().apply(money.game(g).record)
    a = analyse(session, EVAL, database=None)
    won = np.array([g.points * (1 if g.winner == 0 else -1) for g in session.games], dtype=float)
    assert np.abs(won).min() >= 1
    for p, sign in zip(a.players, (1, -1)):
        values = sign * won
        assert p.game_results == pytest.approx(values.tolist())
        assert p.ppg == pytest.approx(values.mean()) and p.actual_result == pytest.approx(values.sum())
        half = 1.959964 * values.std(ddof=1) / np.sqrt(values.size)
        assert p.ppg_interval == pytest.approx((values.mean() - half, values.mean() + half))
        luck = np.zeros((4, 2))
        for d in a.moves:
            luck[d.game, d.player] += d.luck * d.state.cube_value
        adjusted = values - luck[:, p.player] + luck[:, 1 - p.player]
        assert p.game_luck_adjusted_results == pytest.approx(adjusted.tolist())
        assert p.luck_adjusted_ppg == pytest.approx(adjusted.mean())
        assert sum(p.game_luck_adjusted_results) == pytest.approx(p.luck_adjusted_result)
        half = 1.959964 * adjusted.std(ddof=1) / np.sqrt(4)
        assert p.luck_adjusted_ppg_interval == pytest.approx((adjusted.mean() - half, adjusted.mean() + half))
    text = str(a)
    assert f"Advantage (actual) in ppg                {a.players[0].ppg:+.5f}" in text
    assert text.count("95% confidence interval (ppg)") == 2
    assert json.loads(json.dumps(a.to_dict()))["players"][1]["ppg"] == pytest.approx(-won.mean())
    # one game: no interval; match play: no points per game
    one = analyse(matches[1], EVAL, database=None)
    assert one.players[0].ppg is not None and one.players[0].ppg_interval is None and "n/a" in str(one)
    match = analyse(matches[0], EVAL, database=None)
    assert match.players[0].ppg is None and "ppg" not in str(match)


def test_sources_json_and_bad_input(matches, tmp_path):
    m = matches[0]
    fastgen.write_mat(m, tmp_path / "a.mat")
    fastgen.write_mat(matches[2], tmp_path / "b.mat")
    one = analyse(tmp_path / "a.mat")
    assert one.source == str(tmp_path / "a.mat") and one.score == m.score
    assert [x.error for x in one.decisions] == [x.error for x in analyse(m).decisions]
    both = analyse(tmp_path)
    assert [x.source for x in both] == [str(tmp_path / "a.mat"), str(tmp_path / "b.mat")]
    g = analyse(m.games[0])
    assert g.length == 0 and len(g.moves) == sum(1 for x in m.games[0].record if x.kind in ("opening", "roll"))
    data = json.loads(json.dumps(one.to_dict()))
    assert data["players"][0]["name"] == "baseline" and len(data["decisions"]) == len(one.decisions)
    with pytest.raises(InvalidArgumentError, match="analyse takes"):
        analyse(42)
    with pytest.raises(InvalidArgumentError, match="plies"):
        analyse(m, plies=2)
    (tmp_path / "empty").mkdir()
    with pytest.raises(InvalidArgumentError, match="no match file"):
        analyse(tmp_path / "empty")


def test_command_line(matches, tmp_path, capsys):
    from fastgen.cli.main import main

    fastgen.write_mat(matches[0], tmp_path / "a.mat")
    assert main(["analyse", str(tmp_path / "a.mat"), "--worst", "3", "--evaluator", "baseline"]) == 0
    out = capsys.readouterr().out
    assert "Chequerplay statistics" in out and "worst decisions" in out
    assert out.rstrip().endswith("or add --evaluator gnubg:0.")  # the baseline's judgement names the better one
    assert main(["analyse", str(tmp_path / "a.mat"), "--evaluator", "network:1"]) == 0
    assert "--evaluator gnubg:0" not in capsys.readouterr().out
    assert main(["analyse", str(tmp_path / "a.mat"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["names"] == ["baseline", "Eager"]
    assert main(["analyse", str(tmp_path / "a.mat"), "--plies", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["plies"] == 1
    with pytest.raises(SystemExit):
        main(["analyse", str(tmp_path / "a.mat"), "--plies", "2"])
    assert main(["analyse", str(tmp_path / "missing.mat")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_many_matches_on_a_dask_cluster_equal_in_process(matches):
    pytest.importorskip("distributed", reason="dask not installed: pip install '.[dask]'")
    here = analyse(matches, "baseline")
    there = analyse(matches, "baseline", workers=2)
    assert len(there) == len(matches)
    for a, b in zip(here, there):
        assert [d.to_dict() for d in a.decisions] == [d.to_dict() for d in b.decisions]
        assert [p.to_dict() for p in a.players] == [p.to_dict() for p in b.players]


def test_command_line_on_a_dask_cluster(matches, tmp_path, capsys):
    pytest.importorskip("distributed", reason="dask not installed: pip install '.[dask]'")
    from fastgen.cli.main import main

    for i, m in enumerate(matches):
        fastgen.write_mat(m, tmp_path / f"m{i}.mat")
    assert main(["analyse", str(tmp_path), "--json"]) == 0
    here = json.loads(capsys.readouterr().out)
    assert main(["analyse", str(tmp_path), "--json", "--workers", "2"]) == 0
    there = json.loads(capsys.readouterr().out)
    for d in here + there:
        d.pop("seconds")
    assert there == here and len(here) == len(matches)


def test_a_truncated_or_inconsistent_file(matches, tmp_path):
    # a record cut in the middle of a game is analysed as far as it goes, and says so;
    # a play that is not legal names the game and the move
    text = fastgen.write_mat(matches[0])
    lines = text.splitlines()
    cut = "\n".join(lines[: len(lines) // 2])
    a = analyse(fastgen.formats.read_mat(cut))
    assert not a.finished and "stops before the end" in str(a) and a.to_dict()["finished"] is False
    full = analyse(matches[0])
    assert full.finished and [d.to_dict() for d in a.decisions] == [d.to_dict() for d in full.decisions[:len(a.decisions)]]
    i = next(k for k, line in enumerate(lines) if line.startswith("  3) "))
    lines[i] = lines[i][:5] + lines[i][5:].replace(":", ": 1/24", 1)
    (tmp_path / "bad.mat").write_text("\n".join(lines))
    with pytest.raises(fastgen.MatFileError, match=r"game 1, move 3 \(line"):
        analyse(tmp_path / "bad.mat")


def test_html_report(matches, tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="matplotlib not installed: pip install '.[plot]'")
    from fastgen.analysis.html import equity_curve
    from fastgen.cli.main import main

    a = analyse(matches[0])
    text = a.to_html(tmp_path / "r.html", worst=2)
    assert (tmp_path / "r.html").read_text() == text and text.startswith("<!DOCTYPE html>")
    assert text.count('class="decision"') == len(a.worst(2)) == 2
    assert text.count("<svg") == 3 and "Chequerplay statistics" in text and "baseline" in text
    xs, ys, starts = equity_curve(a)
    assert len(xs) == sum(m.played is not None for m in a.moves) and len(starts) == len(matches[0].games)
    assert all(0.0 <= y <= 1.0 for y in ys)
    fastgen.write_mat(matches[0], tmp_path / "a.mat")
    assert main(["analyse", str(tmp_path / "a.mat"), "--html", str(tmp_path / "cli.html"), "--evaluator", "baseline"]) == 0
    assert (tmp_path / "cli.html").read_text().count('class="decision"') == len(a.worst(10))
    capsys.readouterr()
    assert main(["analyse", str(tmp_path), "--html", str(tmp_path / "x.html")]) == 2
    assert "not of a folder" in capsys.readouterr().err


def _one_ply(board, st):
    """(no double, double/take) of *board* (its side on roll before its roll) at 1 ply,
    normalised to *st*'s cube, one play at a time: the average over the 21 rolls of the
    best play's 0-ply value (:func:`_after_value`) with the cube as it is, and doubled
    to the opponent."""
    me, c = st.on_roll, st.cube_value
    score = None if not st.match_length else Score(default_met(), st.match_length - st.score[me],
                                                   st.match_length - st.score[1 - me], crawford=st.crawford,
                                                   player=me)
    branches = [MatchState(match_length=st.match_length, score=st.score, cube_value=cube, cube_owner=owner,
                           crawford=st.crawford, jacoby=st.jacoby, on_roll=me, max_cube=st.max_cube)
                for cube, owner in ((c, st.cube_owner), (2 * c, 1 - me))]
    totals = [0.0, 0.0]
    for r, w in zip(DISTINCT_ROLLS, ROLL_CHANCES):
        plays = fastgen.legal_plays(board, tuple(int(x) for x in r))
        probs = [EVAL(np.ascontiguousarray(plays.boards[k][::-1])[None]) for k in range(len(plays))]
        for i, b in enumerate(branches):
            best = max(_after_value(plays.boards[k], b, probs[k]) for k in range(len(plays)))
            cube = b.cube_value
            totals[i] += w * (best * cube / c if score is None else float(score.mwc(best, cube)))
    return [t if score is None else float(score.equity(t, c)) for t in totals]


def _play_one_ply(after, st):
    """The mover's 1-ply equity of one board after its play: the opponent's 1-ply no
    double and double/take, and its cube action."""
    if result_types(after[None])[0]:
        return _after_value(after, st)
    opp, ost = np.ascontiguousarray(after[::-1]), _flip(st)
    nd, dt = _one_ply(opp, ost)
    zero = cube_decisions(opp[None], EVAL(opp[None]), ost).equities[0]
    doubles = not np.isnan(zero[1]) and dt >= nd and zero[2] >= nd
    return -(min(dt, zero[2]) if doubles else nd)


def test_one_ply_records_equal_the_plain_loop(matches):
    """At 1 ply: the filter's candidates (the best 16 within 0.32 at 0 ply) and the play
    made, each valued by the opponent's 21 rolls one play at a time, give the records'
    equities and errors; the luck stays the 0-ply luck; cube decisions likewise. Two
    turns and a cube decision of the match with the cube, and a money turn (each 1-ply
    value is some 800 positions valued one at a time)."""
    zero = analyse(matches[0], EVAL, database=None)
    one = analyse(matches[0], EVAL, plies=1, database=None)
    assert one.plies == 1 and [m.luck for m in one.moves] == [m.luck for m in zero.moves]
    money = analyse(matches[1], EVAL, plies=1, database=None)
    picked = [m for m in one.moves if 2 < m.candidates <= 4 and m.played is not None][:2]
    picked += [m for m in money.moves if 2 < m.candidates <= 4 and m.played is not None][:1]
    assert len(picked) == 3
    for rec in picked:
        plays, values = _roll_best(rec.board, rec.dice, rec.state)
        order = np.argsort(values)[::-1]
        keep = [k for k in order if values[k] >= values[order[0]] - 0.32][:16]
        k_played = int(np.flatnonzero((plays.boards == rec.played).all(axis=(1, 2)))[0])
        one_ply = {k: _play_one_ply(plays.boards[k], rec.state) for k in set(keep) | {k_played}}
        best = max(one_ply.values())
        assert rec.best_equity == pytest.approx(best, abs=1e-9)
        assert rec.equity == pytest.approx(one_ply[k_played], abs=1e-9)
        assert rec.error == pytest.approx(min(one_ply[k_played] - best, 0.0), abs=1e-9)
    cubes = [c for c in one.cube_decisions if not np.isnan(c.double_take)][:1]
    assert cubes
    for c in cubes:
        nd, dt = _one_ply(c.board, c.state)
        assert (c.no_double, c.double_take) == (pytest.approx(nd, abs=1e-9), pytest.approx(dt, abs=1e-9))
