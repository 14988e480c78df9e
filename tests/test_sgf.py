"""GNU Backgammon's ``.sgf`` match files read and written by fastgen (fastgen.formats.sgf).

Here: hand-written files in gnubg's layout (moves, cube actions, resignations before and
after a roll, the Crawford game, charsets, escapes, variations, gnubg's analysis), round
trips of random matches (every game's record, winner, points and cube, the names and
the match info), the writer's layout and errors, damage of every kind (a small file cut
at every byte, every byte flipped, and named faults) raising only SgfFileError, linear
time on adversarial input, and a Hypothesis fuzz. ``test_sgf_gnubg.py`` checks the same
files with the real program.
"""

from __future__ import annotations

import signal

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from fastgen._version import __version__
from fastgen.errors import MatFileError, SgfFileError
from fastgen.formats.sgf import GNUBG_MAX_CUBE, read_sgf, write_sgf
from fastgen.games.game import Game
from fastgen.games.match import Match

from _matches import random_match, written_record

#: Two games of a 3-point match as gnubg writes them: White opens 31, doubles and Black
#: takes; Black resigns a single game (2 points at a cube of 2) before its roll. The
#: second game is the Crawford game; Black rolls 64 and resigns before playing it.
SMALL = (
    b"(;FF[4]GM[6]CA[UTF-8]AP[GNU Backgammon:1.07.001]MI[length:3][game:0][ws:0][bs:0]PW[Alice]PB[Bob]"
    b"DT[2021-03-04]EV[Club night]RU[Crawford]RE[W+2R]\n"
    b";W[31hefe]LU[0.24330]C[a \\] comment]\n;B[52lnlq]\n;W[double]\n;B[take]\n;W[62xrmk])\n"
    b"(;FF[4]GM[6]CA[UTF-8]AP[GNU Backgammon:1.07.001]MI[length:3][game:1][ws:2][bs:0]PW[Alice]PB[Bob]"
    b"RU[Crawford:CrawfordGame]RE[W+1R]\n"
    b";B[43lpsv]\n;W[56mhmg]\n;PL[B]DI[64])\n"
)


def _expected_small() -> Match:
    m = Match(3, names=("Alice", "Bob"), cube_cap=GNUBG_MAX_CUBE)
    g = m.new_game()
    g.roll((3, 1))
    g.play("8/5 6/5")
    g.roll((5, 2))
    g.play("13/8 13/11")
    g.double()
    g.take()
    g.roll((6, 2))
    g.play("24/18 13/11")
    g.resign(1, player=1)
    g.accept_resignation(player=0)
    g = m.new_game()
    assert g.crawford
    g.roll((3, 4))  # Black opens with 43
    g.play("13/9 6/3")
    g.roll((5, 6))
    g.play("13/8 13/7")
    g.roll((6, 4))
    g.resign(1, player=1)
    g.accept_resignation(player=0)
    return m


def assert_same_games(a: Match, b: Match, *, rejects_dropped: bool = True) -> None:
    """Every game's record (rejected resignations left out), winner, points and cube."""
    assert (b.length, b.names, b.score, len(b.games)) == (a.length, a.names, a.score, len(a.games))
    assert (b.crawford_rule, b.jacoby) == (a.crawford_rule, a.jacoby)
    for k, (x, y) in enumerate(zip(a.games, b.games)):
        assert (written_record(x) if rejects_dropped else x.record) == y.record, f"game {k + 1}"
        assert (x.winner, x.points, x.result, x.crawford, x.resigned, x.dropped, x.cube_value, x.cube_owner) == (
            y.winner, y.points, y.result, y.crawford, y.resigned, y.dropped, y.cube_value, y.cube_owner), k
        assert (x.dice, x.turn) == (y.dice, y.turn), k


# --------------------------------------------------------------------------- reading


def test_reads_a_hand_written_match_in_gnubgs_layout():
    m = read_sgf(SMALL)
    assert_same_games(_expected_small(), m)
    assert m.over and m.winner == 0 and m.score == (3, 0)
    assert m.info == {"date": "2021-03-04", "event": "Club night"}
    assert m.cube_cap == GNUBG_MAX_CUBE
    first = m.games[0]
    assert [a.kind for a in first.record] == ["opening", "play", "roll", "play", "double", "take", "roll", "play",
                                              "resign", "accept"]
    assert first.annotations[1]["comment"] == "a ] comment" and first.annotations[1]["luck"] == pytest.approx(0.2433)
    assert first.annotations[1]["raw"] == {"LU": ["0.24330"], "C": ["a ] comment"]}
    assert m.games[1].record[0] == ("opening", 1, (3, 4))


def test_the_same_match_from_a_path_bytes_or_text(tmp_path):
    path = tmp_path / "m.sgf"
    path.write_bytes(SMALL)
    for source in (path, str(path), SMALL, bytearray(SMALL), SMALL.decode()):
        assert_same_games(_expected_small(), read_sgf(source))


def test_letters_are_whites_points_for_both_movers():
    # Black's 13/8 is White's 12/17 (l, q): the letters are the same board for both sides
    m = read_sgf(b"(;GM[6]MI[length:0];B[52lqln];W[43xtxu])")
    g = Game()
    g.roll((2, 5))
    g.play("13/8 13/11")
    g.roll((4, 3))
    g.play("24/20 24/21")
    assert m.games[0].record == g.record
    assert m.length == 0 and m.names == ("Player 0", "Player 1")


def test_latin1_and_files_without_a_charset():
    latin = "Jørgen Ærø".encode("latin-1")
    data = b"(;FF[4]GM[6]CA[ISO-8859-1]MI[length:1][game:0][ws:0][bs:0]PW[" + latin + b"]PB[B];W[31hefe])"
    assert read_sgf(data).names[0] == "Jørgen Ærø"
    assert read_sgf(data.replace(b"CA[ISO-8859-1]", b"")).names[0] == "Jørgen Ærø"
    utf8 = data.replace(b"CA[ISO-8859-1]", b"").replace(latin, "Jørgen 名".encode())
    assert read_sgf(utf8).names[0] == "Jørgen 名"
    with pytest.raises(SgfFileError, match="not utf-8 text"):
        read_sgf(data.replace(b"CA[ISO-8859-1]", b"CA[UTF-8]"))
    with pytest.raises(SgfFileError, match="CA.koi8-r.: fastgen reads files in UTF-8 or ISO-8859-1"):
        read_sgf(data.replace(b"ISO-8859-1", b"KOI8-R"))


def test_rules_money_sessions_and_the_cube_limit():
    base = b"(;FF[4]GM[6]CA[UTF-8]MI[length:0][game:0][ws:0][bs:0]%sPW[A]PB[B];W[31hefe];B[double];W[drop])"
    m = read_sgf(base % b"RU[Jacoby]")
    assert (m.length, m.jacoby, m.crawford_rule, m.cube_cap, m.score) == (0, True, False, GNUBG_MAX_CUBE, (0, 1))
    with pytest.raises(SgfFileError, match="pass the cap 1"):
        read_sgf(base % b"RU[NoCube]")  # no doubling without a cube
    assert read_sgf(base.replace(b";B[double];W[drop]", b"") % b"RU[NoCube:Jacoby]").cube_cap == 1
    m = read_sgf(base.replace(b"[bs:0]", b"[bs:0][cubelimit:16][site:Oslo]") % b"")
    assert (m.cube_cap, m.jacoby, m.info) == (16, False, {"site": "Oslo"})
    assert read_sgf(base.replace(b"MI[length:0][game:0][ws:0][bs:0]", b"") % b"").length == 0
    m = read_sgf(b"(;GM[6]MI[length:5]RU[Crawford:Jacoby];W[31hefe])")
    assert (m.length, m.crawford_rule, m.jacoby) == (5, True, False)  # the Jacoby rule is money play's
    assert read_sgf(b"(;GM[6]MI[length:5];W[31hefe])").crawford_rule is False
    with pytest.raises(SgfFileError, match="standard backgammon only"):
        read_sgf(base % b"RU[Nackgammon]")


def test_a_file_of_a_later_game_is_a_match_from_its_score_on():
    # what gnubg's "save game" writes for the last games of a match: the score before
    later = SMALL[SMALL.index(b")\n(") + 2:]
    m = read_sgf(later)
    assert (m.start_score, m.score, len(m.games), m.over) == ((2, 0), (3, 0), 1, True)
    assert m.games[0].crawford and m.games[0].record == _expected_small().games[1].record
    back = read_sgf(write_sgf(m))
    assert (back.start_score, back.score) == ((2, 0), (3, 0)) and "[game:0][ws:2][bs:0]" in write_sgf(m)
    # past the Crawford game (RU without CrawfordGame at 2-away/1-away): doubling is allowed
    post = b"(;GM[6]MI[length:3][game:3][ws:2][bs:1]RU[Crawford];W[31hefe];B[double];W[take])"
    m = read_sgf(post)
    assert not m.games[0].crawford and m.games[0].cube_value == 2
    assert read_sgf(write_sgf(m)).games[0].record == m.games[0].record
    with pytest.raises(SgfFileError, match="Crawford game"):
        read_sgf(post.replace(b"RU[Crawford]", b"RU[Crawford:CrawfordGame]"))


def test_escapes_soft_line_breaks_and_whitespace():
    m = read_sgf(b"\xef\xbb\xbf (; GM [6]\r\n MI[length:0] PW[a \\\\ b\\]c] PB[x\\\ny]\n"
                 b" ; W [31hefe] C[one\\\r\ntwo] )\n")
    assert m.names == ("a \\ b]c", "xy")
    assert m.games[0].annotations[1]["comment"] == "onetwo"


def test_the_main_line_of_variations_is_read():
    m = read_sgf(b"(;GM[6]MI[length:0];W[31hefe](;B[52lqln];W[double])(;B[21aclm]))")
    assert [a.kind for a in m.games[0].record] == ["opening", "play", "roll", "play", "double"]


#: A node of a gnubg analysis: the played move's index and two candidates (``A``), the
#: cube analysis (``DA``), the luck, marks and a comment; the root holds the statistics.
ANALYSED = (
    b"(;FF[4]GM[6]CA[UTF-8]MI[length:3][game:0][ws:0][bs:0]PW[A]PB[B]RU[Crawford]"
    b"GS[M:6 6 7 6 5 5 1 0 0 0 1 1 2.966551 0.295083 2.979545 0.296375][D:0 0 0 0 4 4 2 2 1 0 1.5 0.1 1.4 0.1]\n"
    b";W[31mjfe]A[2][hefe E ver 3 0.550952 0.173708 0.012809 0.124388 0.005021 0.243305 0C 0 1 0.000000 1]"
    b"[mjxw E ver 3 0.496973 0.136872 0.007713 0.140396 0.006805 -0.013925 0C 0 1 0.000000 1]"
    b"[mjfe E ver 3 0.489311 0.138231 0.009630 0.153650 0.011724 -0.057103 0C 0 1 0.000000 1]MR[]LU[0.24330]BM[2]\n"
    b";B[44aeaeququ]DA[E ver 3 0C 1 0.000000 1 0.510689 0.153650 0.011724 0.138231 0.009630 0.050076 0.505680 "
    b"0.510689 0.153650 0.011724 0.138231 0.009630 0.050076 0.468950]A[0][aeaeququ R 1 2 3]"
    b"LU[0.48228]GB[1]DO[]XX[kept as it is]\n"
    b";W[25ywhc]LU[-0.02660]GB[2]C[what \\] a move])"
)


def test_gnubgs_analysis_is_parsed_and_kept():
    g = read_sgf(ANALYSED).games[0]
    stats = g.annotations[0]["game"]
    assert stats["statistics"]["M"][:3] == [6, 6, 7] and stats["raw"]["GS"][1].startswith("D:0 0 0 0 4")
    first = g.annotations[1]
    assert (first["source"], first["luck"], first["mark"]) == ("gnubg", pytest.approx(0.2433), "very bad")
    best, second, played = first["move_analysis"]
    assert best == {"played": False, "moves": "hefe", "play": "8/5 6/5", "kind": "evaluation",
                    "probs": pytest.approx([0.550952, 0.173708, 0.012809, 0.124388, 0.005021]),
                    "equity": pytest.approx(0.243305), "level": "0-ply", "cubeful": True}
    assert not second["played"] and second["play"] == "13/10 24/23"
    assert played["played"] and played["play"] == "13/10 6/5" and played["equity"] == pytest.approx(-0.057103)
    second = g.annotations[3]
    assert (second["luck_mark"], second["mark"]) == ("lucky", "doubtful")  # GB: good for Black, the mover
    assert second["move_analysis"] == [{"played": True, "moves": "aeaeququ", "play": "24/20 24/20 8/4 8/4",
                                        "kind": "rollout"}]
    cube = second["cube_analysis"]
    assert cube["no_double"] == pytest.approx(0.50568) and cube["double_take"] == pytest.approx(0.46895)
    assert cube["probs"][0] == pytest.approx(0.510689) and cube["level"] == "0-ply"
    assert second["raw"]["XX"] == ["kept as it is"]
    third = g.annotations[5]
    assert (third["luck_mark"], third["comment"]) == ("very unlucky", "what ] a move")
    # written back as it was read, and read again to the same annotations
    text = write_sgf(read_sgf(ANALYSED))
    for part in (b"A[2][hefe E ver 3", b"MR[]LU[0.24330]BM[2]", b"XX[kept as it is]", b"C[what \\] a move]",
                 b"GS[M:6 6 7 6 5 5 1"):
        assert part.decode() in text
    assert read_sgf(text).games[0].annotations == g.annotations


def test_notes_of_another_program_write_their_comment_only():
    m = random_match(3, 5, max_games=1)
    m.games[0].annotations[1] = {"source": "xg", "comment": "nice", "move_analysis": [{"play": "8/5 6/5"}]}
    back = read_sgf(write_sgf(m))
    assert back.games[0].annotations[1]["comment"] == "nice"
    assert back.games[0].annotations[1]["raw"] == {"C": ["nice"]}


# --------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("length, seed", [(5, 1), (3, 2), (7, 3), (0, 4), (1, 5), (5, 6), (9, 7), (0, 8), (11, 9)])
def test_random_matches_round_trip(length, seed, tmp_path):
    m = random_match(length, seed, p_resign=0.03, p_double=0.3, p_drop=0.2, stop_after_roll=seed % 2 == 0,
                     cube_cap=4096 if not length else 64)
    text = write_sgf(m, tmp_path / "m.sgf")
    assert (tmp_path / "m.sgf").read_text(encoding="utf-8") == text
    back = read_sgf(tmp_path / "m.sgf")
    assert_same_games(m, back)
    assert (back.cube_cap, back.info) == (m.cube_cap, m.info)
    assert write_sgf(back) == text


def test_round_trips_cover_every_feature():
    matches = [random_match([1, 3, 5, 7, 0][s % 5], s, p_resign=0.03, p_double=0.5, p_drop=0.15, cube_cap=128,
                            stop_after_roll=s % 3 == 0) for s in range(30)]
    games = [g for m in matches for g in m.games]
    kinds = {a.kind for g in games for a in g.record}
    assert {"opening", "roll", "play", "double", "take", "drop", "resign", "accept"} <= kinds
    assert any(g.crawford for g in games) and sum(g.resigned for g in games) >= 5
    assert any(g.resigned and g.dice is not None for g in games)  # resigned after a roll
    assert any(not g.over and g.dice is not None for g in games)  # rolled, not played
    assert any(g.result == 3 and not g.resigned for g in games) or any(g.result == 2 for g in games)
    for m in matches:
        assert_same_games(m, read_sgf(write_sgf(m)))


def test_names_info_jacoby_and_the_cube_cap_round_trip():
    info = {"event": "Open ] Final", "date": "2024-05-01", "round": "3", "place": "Oslo", "annotator": "Ann",
            "comment": "line one\nline two \\ ok", "elo0": "1650", "elo1": "1700.5", "site": "FIBS",
            "match_id": "42"}
    for length, jacoby, cap in ((0, True, 1), (0, False, 256), (7, False, 64), (7, False, 4096)):
        m = Match(length, seed=3, names=("Zoë ]", "名前 \\ x"), jacoby=jacoby, cube_cap=cap, info=info)
        g = m.new_game()
        g.roll((6, 1))
        g.play(g.legal_plays().boards[0])
        back = read_sgf(write_sgf(m))
        assert (back.names, back.info, back.jacoby, back.cube_cap, back.length) == (m.names, info, jacoby, cap, length)
        assert back.games[0].record == g.record


def test_a_resignation_under_the_jacoby_rule_keeps_its_result():
    # gnubg writes a resignation's points as offered (2 for a gammon at a centred cube);
    # fastgen's Jacoby rule scores 1, and the offer reads back as a gammon
    m = Match(0, seed=2, jacoby=True, names=("A", "B"))
    g = m.new_game()
    g.roll((3, 1))
    g.play("8/5 6/5")
    g.resign(2, player=1)
    g.accept_resignation()
    text = write_sgf(m)
    assert "RE[W+2R]" in text and "RU[Jacoby]" in text
    back = read_sgf(text)
    assert back.games[0].record == g.record and back.games[0].points == 1


# --------------------------------------------------------------------------- writing


def test_the_layout_is_gnubgs():
    text = write_sgf(_expected_small())
    trees = text.split(")\n(")
    assert len(trees) == 2 and text.endswith(")\n")
    assert trees[0].startswith("(;FF[4]GM[6]CA[UTF-8]AP[fastgen:") and "MI[length:3][game:0][ws:0][bs:0]" in trees[0]
    assert "PW[Alice]PB[Bob]RU[Crawford]RE[W+2R]" in trees[0]
    assert trees[0].splitlines()[1:] == [";W[31hefe]", ";B[52lnlq]", ";W[double]", ";B[take]", ";W[62xrmk]"]
    assert "MI[length:3][game:1][ws:2][bs:0]" in trees[1] and "RU[Crawford:CrawfordGame]RE[W+1R]" in trees[1]
    assert trees[1].splitlines()[1:] == [";B[43lpsv]", ";W[56mhmg]", ";PL[B]DI[64])"]
    # the games read from gnubg's text write gnubg's text again (bar the application)
    assert write_sgf(read_sgf(SMALL)) == SMALL.decode().replace("GNU Backgammon:1.07.001", f"fastgen:{__version__}")


def test_bar_entries_bear_offs_and_chained_moves_use_gnubgs_letters():
    m = random_match(1, 5, p_double=0, p_resign=0)
    text = write_sgf(m)
    moves = [line[5:] for line in text.splitlines() if line[:3] in (";W[", ";B[") and line[3].isdigit()]
    assert any("z" in line for line in moves) and any("y" in line for line in moves)  # off, and the bar
    assert_same_games(m, read_sgf(text))


def test_writer_errors_are_sgf_file_errors(tmp_path):
    with pytest.raises(SgfFileError, match="without games"):
        write_sgf(Match(3))
    m = random_match(3, 1, max_games=1)
    m.info["bad:key"] = "x"
    with pytest.raises(SgfFileError, match="bad:key"):
        write_sgf(m)
    m = random_match(3, 1, max_games=1)
    m.games[0].annotations[1] = {"raw": {"lower": ["x"]}}
    with pytest.raises(SgfFileError, match="not an SGF property"):
        write_sgf(m)
    m.games[0].annotations[1] = {"raw": {"A": "not a list"}}
    with pytest.raises(SgfFileError):
        write_sgf(m)
    (tmp_path / "out.sgf").write_text("old")
    with pytest.raises(SgfFileError):
        write_sgf(Match(3), tmp_path / "out.sgf")
    assert (tmp_path / "out.sgf").read_text() == "old"


# --------------------------------------------------------------------------- damage


def test_a_file_cut_at_any_byte_is_refused_or_holds_the_first_games():
    ends = [k + 1 for k in range(len(SMALL)) if SMALL[k:k + 2] == b")\n"]
    full = read_sgf(SMALL)
    for cut in range(len(SMALL)):
        data = SMALL[:cut]
        if cut in ends or cut - 1 in ends:  # whole games (and a newline)
            m = read_sgf(data)
            games = sum(end <= cut for end in ends)
            assert [g.record for g in m.games] == [g.record for g in full.games[:games]]
            continue
        with pytest.raises(SgfFileError):
            read_sgf(data)


def test_every_byte_flipped_is_read_or_refused_with_sgf_file_error():
    for k in range(len(SMALL)):
        for flip in (0x01, 0x20, 0x80, 0xFF):
            data = bytearray(SMALL)
            data[k] ^= flip
            try:
                m = read_sgf(bytes(data))
            except SgfFileError as exc:
                assert "(the given bytes)" in str(exc) and "byte" in str(exc)
            else:
                write_sgf(m)


_GOOD = b"(;GM[6]MI[length:3][game:0][ws:0][bs:0]PW[A]PB[B];W[31hefe];B[52lqln];W[double];B[drop])"


@pytest.mark.parametrize("data, message", [
    (b"", "no game tree"),
    (b"   \n", "no game tree"),
    (b"hello", "starts with '\\(;'"),
    (b"(;GM[6]", "a '\\)' is missing"),
    (b"(;GM[6]))", "after a game tree"),
    (b"(;GM[6]PW[abc", "not closed"),
    (b"(;GM[6]PW[abc\\", "after an escape"),
    (b"(;GM[6]PW abc])", "has no value"),
    (b"(;GM[6];W[31hefe]]", "unexpected byte"),
    (b"()", "empty game tree"),
    (b"(GM[6])", "outside a node"),
    (b"(;GM[6](;W[31hefe]);B[52lqln])", "after a variation"),
    (b"(;GM[1];W[31hefe])", "not a backgammon file"),
    (b"(;GM[6]PW[a]PW[b];W[31hefe])", "appears twice"),
    (b"(;GM[6];W[33hefe])", "opening roll 33 is a double"),
    (b"(;GM[6];W[71hefe])", "cannot read '71hefe'"),
    (b"(;GM[6];W[31hefeab])", "from where the mover has none"),
    (b"(;GM[6];W[31aeae])", "from where the mover has none"),
    (b"(;GM[6];W[31hefd])", "fits none of"),
    (b"(;GM[6];W[31hzfe])", "fits none of"),
    (b"(;GM[6];W[31hefe];W[52xsxv])", "player 1's turn"),
    (b"(;GM[6];W[31hefe];B[52])", "fits none of"),
    (b"(;GM[6];W[31yefe])", "from where the mover has none"),
    (b"(;GM[6];W[31zefe])", "from a point or the bar"),
    (b"(;GM[6];W[31h?fe])", "cannot read"),
    (b"(;GM[6];W[31hefe];B[beaver])", "beavers"),
    (b"(;GM[6];W[31hefe]B[double])", "one action a node"),
    (b"(;GM[6];AB[aa];W[31hefe])", "set-up position"),
    (b"(;GM[6];W[31hefe];CV[2])", "sets the cube"),
    (b"(;GM[6];W[31hefe];CP[w])", "sets the cube"),
    (b"(;GM[6];W[31hefe];PL[W])", "hands the turn"),
    (b"(;GM[6];DI[31])", "needs PL"),
    (b"(;GM[6];PL[W]DI[71])", "two digits 1..6"),
    (b"(;GM[6]RE[W+1];W[31hefe])", "moves do not end it"),
    (b"(;GM[6]RE[W+5R];W[31hefe])", "1, 2 or 3 times the cube"),
    (b"(;GM[6]RE[X+1];W[31hefe])", "expected W\\+N"),
    (b"(;GM[6]MI[length:x];W[31hefe])", "match length must be a number"),
    (b"(;GM[6]MI[length:3][ws:3];W[31hefe])", "cannot describe a match"),
    (b"(;GM[6]MI[length:3][bs:-1];W[31hefe])", "bs must be a number"),
    (b"(;GM[6]MI[length:3];W[31hefe])(;GM[6]MI[length:3][game:1];W[31hefe])", "does not end"),
    (_GOOD + b"(;GM[6]MI[length:3][game:1][ws:0][bs:1];W[31hefe])", "score 0-1"),
    (_GOOD + b"(;GM[6]MI[length:5][game:1];W[31hefe])", "match length 5"),
    (_GOOD + b"(;GM[6]MI[game:4];W[31hefe])", "numbers the game 4"),
    (_GOOD + b"(;GM[6]PB[C];W[31hefe])", "not the first game's player"),
    (b"(;GM[6]CA[UTF-8]PW[\xff];W[31hefe])", "not utf-8"),
    (b"(;GM[6]" + b"(;" * 2000 + b")" * 2001, "nested more than"),
    (b"(;GM[6]" + b"ABCDEFGHIJKLMNOPQRSTUVWXYZ[1])", "longer than"),
])
def test_named_damage_raises_sgf_file_error_saying_where(data, message):
    with pytest.raises(SgfFileError, match=message) as info:
        read_sgf(data)
    assert "(the given bytes)" in str(info.value) and "byte" in str(info.value)
    assert isinstance(info.value, MatFileError)


def test_errors_name_the_file_the_game_and_the_node(tmp_path):
    path = tmp_path / "bad.sgf"
    path.write_bytes(SMALL.replace(b";W[56mhmg]", b";W[56mhmh]"))
    with pytest.raises(SgfFileError) as info:
        read_sgf(path)
    text = str(info.value)
    assert repr(str(path)) in text and "game 2, node 3 (byte" in text and "'mhmh'" in text


def test_bad_sources_raise_sgf_file_error(tmp_path):
    for source in (tmp_path / "missing.sgf", tmp_path, 42, None, ["(;"]):
        with pytest.raises(SgfFileError):
            read_sgf(source)  # type: ignore[arg-type]


@pytest.mark.skipif(not hasattr(signal, "SIGALRM"), reason="needs SIGALRM (POSIX) for the hang guard")
def test_reading_is_linear_on_adversarial_megabytes():
    """Each input of a few MiB is read or refused at once; the alarm only guards against
    a hang (a quadratic scan of escapes, a recursive descent), it measures nothing."""
    n = 1 << 21

    def hang(signum, frame):
        raise TimeoutError("read_sgf took over 30 s: not linear")

    inputs = [
        b"(;GM[6]C[" + b"\\x" * n + b"])",  # escapes far from the closing bracket
        b"(;GM[6]C[" + b"\\" * (2 * n) + b"])",
        b"(;GM[6]" + b"C[]" * n + b")",  # many values (over the limit of values)
        b"(;GM[6]" + b";" * n + b")",  # many empty nodes
        b"(;GM[6]" + b"(;" * n,  # deep variations
        b"(;" + b"A" * n + b"[x])",  # a long name
        b"(;GM[6]MI[length:0]" + b";W[31hefe];B[31]" * 10 + b"C[" + b"]" * n,
        b"(;GM[6]" + b" " * n + b")",
    ]
    old = signal.signal(signal.SIGALRM, hang)
    try:
        for data in inputs:
            signal.alarm(30)
            try:
                read_sgf(data)
            except SgfFileError:
                pass
            finally:
                signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, old)


# --------------------------------------------------------------------------- fuzzing

_VALID = [SMALL, ANALYSED] + [write_sgf(random_match(n, s, p_resign=0.05, p_double=0.2)).encode()
                              for n, s in ((3, 1), (0, 3), (1, 4))]
_FIXTURES = [HealthCheck.too_slow, HealthCheck.data_too_large]


@st.composite
def damaged(draw, choices: list[bytes]) -> bytes:
    """A valid file cut short, with bytes overwritten, inserted or deleted (one to four edits)."""
    out = bytearray(draw(st.sampled_from(choices)))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["cut", "overwrite", "insert", "delete", "token"]))
        at = draw(st.integers(0, max(len(out) - 1, 0)))
        if kind == "cut":
            del out[at:]
        elif kind == "overwrite":
            chunk = draw(st.binary(min_size=1, max_size=6))
            out[at:at + len(chunk)] = chunk
        elif kind == "insert":
            out[at:at] = draw(st.binary(min_size=1, max_size=6))
        elif kind == "delete":
            del out[at:at + draw(st.integers(1, 16))]
        else:
            out[at:at] = draw(st.sampled_from([b"(;", b")", b"[", b"]", b"\\", b";B[double]", b";W[take]", b";B[drop]",
                                               b"RE[W+2R]", b"MI[length:0]", b"PL[B]DI[66]", b";W[52zzzz]", b"AB[aa]",
                                               b"RU[NoCube]", b"CA[ISO-8859-1]", "é".encode()]))
    return bytes(out)


@settings(suppress_health_check=_FIXTURES, deadline=None)
@given(damaged(_VALID))
def test_fuzz_damaged_files_are_read_or_raise_only_sgf_file_error(data):
    try:
        m = read_sgf(data)
    except SgfFileError:
        return
    assert isinstance(m, Match) and m.games
    assert [g.record for g in read_sgf(write_sgf(m)).games] == [g.record for g in m.games]


_TOKENS = [b"(", b")", b";", b"(;", b"GM[6]", b"MI[length:3]", b"MI[length:0][game:1]", b"W[31hefe]", b"B[52lqln]",
           b"W[double]", b"B[take]", b"B[drop]", b"W[", b"]", b"\\", b"RE[W+1R]", b"RE[B+2]", b"PL[W]", b"DI[64]",
           b"RU[Crawford:CrawfordGame]", b"A[0][hefe E ver 3 1 2]", b"C[x]", b"\n", b"CA[ISO-8859-1]", b"\xff"]


@settings(suppress_health_check=_FIXTURES, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_TOKENS), st.binary(max_size=4)), max_size=40))
def test_fuzz_token_soup_raises_only_sgf_file_error(parts):
    try:
        m = read_sgf(b"".join(parts))
    except SgfFileError:
        return
    assert isinstance(m, Match)
    write_sgf(m)
