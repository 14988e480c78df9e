"""Match records written as ``.mat`` text and read back (R16-R20 replayed).

The layout follows GNU Backgammon's exporter; ``test_gnubg_program.py`` checks it with
the real program. Here: the layout rules, resignations, unplayed rolls, large cubes,
the reader's errors (only MatFileError), its linear time and a Hypothesis fuzz.
"""

from __future__ import annotations

import signal

import pytest
from hypothesis import given, settings, strategies as st

import fastgen
from fastgen.errors import MatFileError
from fastgen.games.game import GAMMON, SINGLE
from fastgen.games.match import Match
from fastgen.formats.matfile import GNUBG_MAX_CUBE, match_play_text, read_mat, write_mat

from _matches import random_match, written_record


def assert_same_match(a: Match, b: Match) -> None:
    assert (b.length, b.names, b.score, len(b.games)) == (a.length, a.names, a.score, len(a.games))
    for x, y in zip(a.games, b.games):
        assert written_record(x) == y.record
        assert (x.winner, x.points, x.result, x.crawford, x.resigned, x.dropped, x.cube_value) == (
            y.winner, y.points, y.result, y.crawford, y.resigned, y.dropped, y.cube_value)
        assert x.dice == y.dice


@pytest.mark.parametrize("length, seed", [(5, 1), (3, 2), (7, 3), (0, 4), (1, 5), (5, 6), (9, 7)])
def test_match_record_round_trips_through_mat_text(length, seed, tmp_path):
    m = random_match(length, seed, p_resign=0.02, stop_after_roll=seed % 2 == 0)
    text = write_mat(m, tmp_path / "m.mat")
    assert f"\n {length} point match\n" in text
    assert " Game 1\n" in text and " Alice : 0 " in text and "Bob Smith : 0" in text
    back = read_mat(tmp_path / "m.mat")
    assert_same_match(m, back)
    assert back.cube_cap == m.cube_cap
    assert write_mat(back) == text


def test_random_matches_cover_every_feature():
    """The generator used by the round trips makes what the file must carry."""
    matches = [random_match([1, 3, 5, 7, 0][s % 5], s, p_resign=0.02, p_double=0.5, p_drop=0.15, cube_cap=128)
               for s in range(40)]
    games = [g for m in matches for g in m.games]
    kinds = {a.kind for g in games for a in g.record}
    assert {"opening", "roll", "play", "double", "take", "drop", "resign", "accept", "reject"} <= kinds
    assert any(g.crawford for g in games) and any(g.resigned for g in games)
    assert max(g.cube_value for g in games) == 128
    for m in matches:
        assert_same_match(m, read_mat(write_mat(m)))


def test_mat_layout_has_rolls_cube_actions_and_wins():
    m = Match(3, seed=0, names=("A", "B"))
    g = m.new_game()
    g.roll((1, 3))  # player 1 opens with 3-1
    g.play("8/5 6/5")
    g.double()  # player 0 doubles
    g.take()
    g.roll((6, 4))
    g.play(g.legal_plays().boards[0])
    g.double()  # player 1 redoubles
    g.drop()
    text = write_mat(m)
    lines = text.splitlines()
    assert lines[:3] == ['; [CubeLimit "64"]', "", " 3 point match"]
    assert lines[5] == " A : 0                          B : 0"  # gnubg: " %-31s%s"
    assert lines[6] == "  1)" + " " * 29 + "31: 8/5 6/5"
    assert lines[7] == "  2)  Doubles => 2                Takes"
    assert lines[8].startswith("  3) 64: ") and lines[8].endswith("  Doubles => 4")
    assert lines[8].index("Doubles") == 34
    assert lines[9] == "  4)  Drops" + " " * 23 + "Wins 2 points"  # the pass and its Wins on one line
    assert read_mat(text).games[0].record == g.record


def test_a_pass_never_stands_on_a_short_line():
    """gnubg 1.07 misreads a line of 15 characters or fewer after a cube action: it
    recorded a phantom 'Beavers' and the wrong score. A pass by the right player is
    followed by the left player's Wins line; a pass by the left player shares its line
    with the right player's Wins, as gnubg writes them."""
    for seed in range(30):
        m = random_match(5, seed, p_double=0.3, p_drop=0.5)
        for line in write_mat(m).splitlines():
            if "Drops" in line or "Takes" in line or "Doubles" in line:
                assert len(line) > 15, line


def test_a_right_column_cube_action_stands_two_spaces_from_a_long_left_entry():
    m = Match(0, seed=0, names=("A", "B"))
    g = m.new_game()
    g.roll((4, 1))
    g.play("24/23 13/9")
    g.roll((5, 5))
    g.play(g.legal_plays().boards[0])
    g.roll((3, 3))  # player 0: bar/22* 18/15 14/11 13/10 style, four moves
    plays = g.legal_plays()
    long = max(range(len(plays)), key=lambda k: len(str(plays[k])))
    g.play(plays.boards[long])
    g.double()
    text = write_mat(m)
    line = next(x for x in text.splitlines() if "Doubles" in x)
    assert line[: line.index("Doubles")].endswith("  "), line


@pytest.mark.parametrize("who, after_roll", [(0, False), (1, False), (0, True), (1, True)])
def test_resignation_round_trip_and_layout(who, after_roll):
    m = Match(5, seed=3, names=("A", "B"))
    g = m.new_game()
    g.roll((5, 2))
    g.play(g.legal_plays().boards[0])
    g.double()
    g.take()  # cube 2, player 1 owns it
    if g.turn != who:
        g.roll((6, 4))
        g.play(g.legal_plays().boards[0])
    if after_roll:
        g.roll((3, 1))
    g.resign(GAMMON, player=who)
    g.accept_resignation()
    assert (g.winner, g.points, g.result, g.resigned) == (1 - who, 4, GAMMON, True)
    assert m.score == ((4, 0) if who == 1 else (0, 4))
    text = write_mat(m)
    wins = next(x for x in text.splitlines() if "Wins" in x)
    assert wins.index("Wins") == (6 if who == 1 else 34)
    back = read_mat(text)
    assert_same_match(m, back)
    assert back.games[0].dice == ((3, 1) if after_roll else None)


def test_gnubg_resignation_lines_after_an_unplayed_roll():
    """GNU Backgammon 1.07 writes the Wins of a resignation straight after the roll the
    other player had not played yet, on the same line (layouts seen in its exports)."""
    header = " 7 point match\n\n Game 1\n gnubg : 0                      root : 0\n"
    right = read_mat(header + "  1) 64: 13/9 8/2                42:  Wins 2 points\n")
    g = right.games[0]
    assert (g.winner, g.points, g.result, g.resigned, g.dice, g.turn) == (1, 2, GAMMON, True, (4, 2), 1)
    left = read_mat(header + "  1) 61:       Wins 1 point\n")
    g = left.games[0]
    assert (g.winner, g.points, g.resigned, g.dice, g.turn) == (0, 1, True, (6, 1), 0)
    assert right.score == (0, 2) and left.score == (1, 0)


def test_rejected_resignation_leaves_no_trace_in_the_file():
    m = Match(3, seed=1)
    g = m.new_game()
    g.roll()
    g.play(g.legal_plays().boards[0])
    g.resign(SINGLE)
    g.reject_resignation()
    g.roll()
    g.play(g.legal_plays().boards[0])
    back = read_mat(write_mat(m))
    assert [a.kind for a in back.games[0].record] == ["opening", "play", "roll", "play"]


def test_a_game_rolled_but_not_played_is_read_back():
    m = Match(7, seed=2)
    g = m.new_game()
    g.roll((3, 1))
    g.play("8/5 6/5")
    g.roll((6, 5))
    text = write_mat(m)
    assert text.splitlines()[-2].rstrip().endswith("65:")
    back = read_mat(text)
    assert back.games[0].dice == (6, 5) and back.games[0].turn == g.turn
    assert back.games[0].record == g.record


def test_a_roll_without_play_must_end_the_game_record():
    text = write_mat(random_match(3, 1))
    lines = text.splitlines()
    k = next(i for i, line in enumerate(lines) if line.startswith("  3) "))
    lines[k] = lines[k][:8] + " " * (len(lines[k]) - 8)  # "  3) dd:" and nothing else
    with pytest.raises(MatFileError, match="none is written"):
        read_mat("\n".join(lines))


def test_cubes_above_64_round_trip_with_the_match_cap():
    m = Match(0, seed=5, cube_cap=256)
    g = m.new_game()
    g.roll()
    g.play(g.legal_plays().boards[0])
    for _ in range(8):
        g.double()
        g.take()
        g.roll()
        g.play(g.legal_plays().boards[0])
    assert g.cube_value == 256
    text = write_mat(m)
    assert '; [CubeLimit "256"]' in text and "Doubles => 256" in text
    back = read_mat(text)
    assert back.cube_cap == 256 and back.games[0].cube_value == 256
    assert not back.games[0].may_double
    # a file without the tag (as gnubg writes it) accepts cubes up to gnubg's limit
    untagged = read_mat(text.replace('; [CubeLimit "256"]', ""))
    assert untagged.cube_cap == GNUBG_MAX_CUBE and untagged.games[0].cube_value == 256
    with pytest.raises(MatFileError, match="cap"):
        read_mat(text.replace('"256"', '"128"'))


def test_crawford_and_jacoby_tags():
    m = Match(3, seed=1, crawford=False)
    assert '; [Crawford "Off"]' in write_mat(m) and not read_mat(write_mat(m)).crawford_rule
    money = Match(0, seed=1, jacoby=True)
    assert read_mat(write_mat(money)).jacoby


def test_one_point_match_is_post_crawford_as_in_gnubg():
    m = Match(1, seed=4)
    g = m.new_game()
    assert not g.crawford and not m.crawford_game and m.post_crawford
    g.roll()
    g.play(g.legal_plays().boards[0])
    assert g.may_double  # post-Crawford: either side may double (the cube is dead anyway)
    back = read_mat(write_mat(random_match(1, 8)))
    assert not any(x.crawford for x in back.games)


def test_mat_reader_accepts_jellyfish_point_numbers_and_the_match():
    m = random_match(5, 7)
    text = write_mat(m).replace("bar/", "25/").replace("/off", "/0")
    text = text.replace(f"Wins {m.games[-1].points} point", f"Wins {m.games[-1].points} point", 1)
    back = read_mat(text)
    assert [g.record for g in back.games] == [written_record(g) for g in m.games]
    last = write_mat(m).rstrip("\n").splitlines()[-1]
    assert read_mat(write_mat(m).replace(last, last + " and the match")).score == m.score


def test_mat_reader_rejects_an_illegal_play_quoting_the_line():
    text = write_mat(random_match(3, 1))
    lines = text.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("  2) "))
    lines[i] = lines[i][:5] + lines[i][5:].replace(":", ": 1/24", 1)
    with pytest.raises(MatFileError, match=rf"game 1, move 2 \(line {i + 1}\): "):
        read_mat("\n".join(lines))


def test_mat_reader_rejects_wrong_scores_and_headers():
    text = write_mat(random_match(5, 2))
    assert text.count(" Game ") >= 2
    second = text.index(" Game 2")
    tampered = text[:second] + text[second:].replace(" : ", " : 9", 1)
    with pytest.raises(MatFileError, match="starts at"):
        read_mat(tampered)
    with pytest.raises(MatFileError, match="point match"):
        read_mat("hello\n")
    with pytest.raises(MatFileError, match="at most 6 digits"):
        read_mat(" 9" + "9" * 5000 + " point match\n")
    with pytest.raises(MatFileError, match="'٣'"):
        read_mat(" ٣ point match\n")  # an Arabic-Indic digit is not a number here
    with pytest.raises(MatFileError):
        read_mat(12)


def test_resignation_points_read_as_gnubg_reads_them():
    """Points that are not 1, 2 or 3 cubes: the nearest result up, single to backgammon
    (what GNU Backgammon 1.07 records for them; tests/test_match_corpus.py asks it)."""
    m = Match(7, seed=1)
    g = m.new_game()
    g.roll()
    g.play(g.legal_plays().boards[0])
    g.resign(SINGLE, player=0)
    g.accept_resignation()
    text = write_mat(m)
    assert "Wins 1 point" in text
    for written, points in (("Wins 5 points", 3), ("Wins 2 points", 2), ("Wins 0 points", 1)):
        game = read_mat(text.replace("Wins 1 point", written)).games[0]
        assert (game.winner, game.points, game.resigned) == (1, points, True)


def test_read_mat_raises_only_mat_file_error_for_bad_sources(tmp_path):
    bad = tmp_path / "bad.mat"
    bad.write_bytes(b" 3 point match\n\n Game 1\n \x00 : 0   B : 0\n")
    cases = [tmp_path, str(tmp_path), bad, str(tmp_path / "missing.mat"), None, 3.5, ["x"],
             "x\x00y.mat", b"\xff"]
    for source in cases:
        with pytest.raises(MatFileError):
            read_mat(source)
    assert read_mat(write_mat(random_match(3, 1)).encode()).length == 3


def test_write_mat_replaces_the_file_whole(tmp_path):
    """write_mat writes a temporary file beside the old one and renames it into place: a
    reader holding the old file keeps it, and no temporary file is left."""
    path = tmp_path / "m.mat"
    first = write_mat(random_match(3, 1), path)
    with open(path, encoding="utf-8") as held:
        second = write_mat(random_match(5, 2), path)
        assert held.read() == first != second
    assert path.read_text(encoding="utf-8") == second
    assert [p.name for p in tmp_path.iterdir()] == ["m.mat"]


def test_write_mat_rejects_names_it_cannot_read_back():
    for name in ("a:b", "", " padded", "two\nlines"):
        m = Match(3, names=(name, "B"))
        with pytest.raises(MatFileError, match="does not fit a .mat file") as info:
            write_mat(m)
        assert repr(name) in str(info.value)


def test_play_text_variants_match_the_same_play():
    board = fastgen.STARTING_BOARD
    plays = fastgen.legal_plays(board, (6, 6))
    a = match_play_text(board, (6, 6), plays, "24/18(2) 13/7(2)")
    b = match_play_text(board, (6, 6), plays, "24/18 24/18 13/7 13/7")
    assert a == b
    plays = fastgen.legal_plays(board, (6, 5))
    assert match_play_text(board, (6, 5), plays, "24/13") == match_play_text(board, (6, 5), plays, "24/18/13")
    with pytest.raises(ValueError, match="'24/12'"):
        match_play_text(board, (6, 5), plays, "24/12")
    with pytest.raises(ValueError, match="as a point"):
        match_play_text(board, (6, 5), plays, "２4/13")  # a fullwidth digit


# --------------------------------------------------------------------------- linear time


def _adversarial_lines(n: int) -> list[str]:
    """Lines that made the old header and move regular expressions backtrack."""
    return [
        " A" + " " * n + ": 0" + " " * n + "B" + " " * n + ": x",  # long blanks around names
        " " + ":" * n,  # many colons
        " " + "a :" * (n // 3) + " 1",  # many name-like pieces
        "  1) 31: " + "8/5 " * (n // 4),
        "  1) " + " " * n + "Wins 1 point" + " " * n + "x",
        "  1) 31:" + "(" * n,
    ]


@pytest.mark.skipif(not hasattr(signal, "SIGALRM"), reason="needs SIGALRM (POSIX) for the hang guard")
def test_reader_is_linear_on_adversarial_megabyte_lines():
    """Each 1 MB line is read (and rejected) at once. The old header expression took 5 s
    on a 32 KB line and grew with the square of the length (about 1,000x longer here); the
    alarm only guards against such a hang, it measures nothing."""

    def hang(signum, frame):
        raise TimeoutError("read_mat took over 30 s on a 1 MB line: not linear")

    old = signal.signal(signal.SIGALRM, hang)
    try:
        for line in _adversarial_lines(1 << 20):
            for text in (f" 3 point match\n Game 1\n{line}\n", f" 3 point match\n Game 1\n A : 0  B : 0\n{line}\n"):
                signal.alarm(30)
                try:
                    read_mat(text)
                except MatFileError:
                    pass
                finally:
                    signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, old)


# --------------------------------------------------------------------------- fuzzing

_FRAGMENTS = [
    " 3 point match", " 0 point match", " Game 1", " Game 2", " A : 0", " B : 0",
    " A : 0                          B : 0", "  1) ", " 31: 8/5 6/5", " 64: 24/18 13/9", "52:",
    " Doubles => 2", " Takes", " Drops", " Wins 1 point", " Wins 2 points", " Beavers",
    "bar/22*", "6/off", "25/", "/0", "(2)", ":", ")", "\n", "\n", "\n", " " * 20, ";",
    '; [CubeLimit "128"]', '; [Crawford "Off"]', "\t", "\x00", "é", "٣", "99999999",
]


@settings(max_examples=300)
@given(st.lists(st.one_of(st.sampled_from(_FRAGMENTS), st.text(max_size=8)), max_size=60))
def test_fuzz_read_mat_fragments_raise_only_mat_file_error(parts):
    try:
        match = read_mat("".join(parts))
    except MatFileError:
        return
    assert isinstance(match, Match)


_VALID = [write_mat(random_match(n, s, p_resign=0.05, p_double=0.2)) for n, s in ((3, 1), (5, 2), (0, 3), (1, 4))]


@settings(max_examples=300)
@given(
    st.sampled_from(_VALID),
    st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 6), st.text(max_size=4)), min_size=1, max_size=4),
)
def test_fuzz_read_mat_mutated_files_raise_only_mat_file_error(text, edits):
    for pos, cut, insert in edits:
        pos %= len(text) + 1
        text = text[:pos] + insert + text[pos + cut:]
    try:
        match = read_mat(text)
    except MatFileError:
        return
    write_mat(match)  # whatever was read is a consistent match
