"""Many ``.mat`` files at once (:func:`fastgen.formats.matbatch.read_mat_files`): the
compiled scanner must read every file it takes exactly as :func:`read_mat` reads it, and
leave the others to read_mat.

- The corpus (``tests/data/matches``, 1,777 matches people played): every file is read
  as read_mat reads it (the match's names, length, rules, information, start score and
  score, and every game's whole state: record, winner, result, points, cube, owner, the
  position, the dice ...), or refused with read_mat's own message; at least 99% of them
  by the scanner (the count is printed).
- The arrays of every play agree with the records, and each play is a legal play of the
  position before it.
- One thread or two: the same batch.
- Damaged texts (a seeded Hypothesis fuzz, derandomized in the ``ci`` profile): the
  scanner reads a text as read_mat does or leaves it to read_mat, and never crashes.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from fastgen import legal_plays
from fastgen.errors import MatFileError
from fastgen.formats import _matscan, matbatch
from fastgen.formats.matbatch import MatchBatch, read_mat_files
from fastgen.formats.matfile import LIMIT, read_mat

CORPUS = Path(__file__).parent / "data" / "matches"
FILES = sorted(p for folder in ("galaxy", "studio") for p in (CORPUS / folder).iterdir())
#: Corpus files the reader refuses (a Wins line the replay contradicts).
REFUSED = {"match8239468.txt", "match8794401.txt", "match9665488.txt", "match9814649.txt"}
GAME_STATE = ("record", "winner", "result", "points", "cube_value", "cube_owner", "resigned", "dropped", "crawford",
              "cube_cap", "jacoby", "turn", "dice", "pending_double", "pending_resignation", "resigner", "turns",
              "annotations")


def _same(ours, theirs, where: str = "") -> None:
    """The two matches are equal in every field a reading gives."""
    for name in ("names", "length", "crawford_rule", "jacoby", "cube_cap", "info", "start_score", "problems",
                 "score", "over", "winner"):
        assert getattr(ours, name) == getattr(theirs, name), f"{where}: match.{name}"
    assert len(ours.games) == len(theirs.games), f"{where}: number of games"
    for k, (g, h) in enumerate(zip(ours.games, theirs.games)):
        assert set(vars(g)) == set(vars(h)), f"{where} game {k}: attributes"
        for name in GAME_STATE:
            assert getattr(g, name) == getattr(h, name), f"{where} game {k}: {name}"
        assert g.board.tobytes() == h.board.tobytes(), f"{where} game {k}: the position"
        assert g.board.dtype == h.board.dtype and g.board.shape == h.board.shape
        assert g.rng is ours.rng


def _read_both(source):
    """(read_mat's match, None) or (None, its message)."""
    try:
        return read_mat(source), None
    except MatFileError as exc:
        return None, str(exc)


@pytest.fixture(scope="module")
def corpus():
    return read_mat_files(FILES, errors="skip")


def test_every_corpus_file_is_read_as_read_mat_reads_it(corpus):
    assert len(FILES) == 1777
    print(f"\n{len(FILES)} files: {corpus.fast} read by the scanner, {len(corpus.fallbacks)} by read_mat "
          f"({sorted(set(corpus.fallbacks.values()))}), {len(corpus.errors)} refused")
    assert corpus.fast >= 0.99 * len(FILES)
    assert {Path(p).name for p in corpus.errors} == REFUSED
    read = iter(range(len(corpus)))
    for path in FILES:
        theirs, message = _read_both(path)
        if message is not None:
            assert corpus.errors[os.fspath(path)] == message
            continue
        i = next(read)
        assert corpus.paths[i] == path
        _same(corpus.match(i), theirs, path.name)


def test_the_play_arrays_agree_with_the_records(corpus):
    after, before, dice = corpus.boards_after, corpus.boards_before, corpus.dice
    n = len(after)
    assert before.shape == after.shape == (n, 2, 25) and dice.shape == (n, 2) and n > 200_000
    for name in ("play_match", "play_game", "play_turn", "play_player"):
        assert getattr(corpus, name).shape == (n,)
    assert (np.diff(corpus.play_match) >= 0).all() and not after.flags.writeable
    k = 0
    for i in range(0, len(corpus), 7):  # every 7th match
        k = int(np.searchsorted(corpus.play_match, i))
        match = corpus.match(i)
        for number, game in enumerate(match.games):
            turn = 0
            for kind, player, data in game.record:
                if kind != "play":
                    continue
                assert after[k].tobytes() == data
                assert (corpus.play_match[k], corpus.play_game[k], corpus.play_turn[k], corpus.play_player[k]) == (
                    i, number, turn, player)
                turn += 1
                k += 1
    for k in range(0, n, 97):  # each play is a legal play of the position before it
        plays = legal_plays(before[k], tuple(dice[k]))
        assert (plays.boards == after[k]).all(axis=(1, 2)).any(), k
        if k + 1 < n and corpus.play_game[k + 1] == corpus.play_game[k] and corpus.play_turn[k + 1]:
            assert (before[k + 1] == after[k][::-1]).all()


def test_two_threads_read_the_same_batch(corpus):
    two = read_mat_files(FILES, errors="skip", threads=2)
    assert two.paths == corpus.paths and two.errors == corpus.errors and two.fast == corpus.fast
    for name in ("boards_before", "boards_after", "dice", "play_match", "play_game", "play_turn", "play_player"):
        assert (getattr(two, name) == getattr(corpus, name)).all(), name
    for i in (0, 500, 1000, len(two) - 1):
        _same(two.match(i), corpus.match(i), str(two.paths[i]))


def test_the_error_modes(tmp_path):
    good = [FILES[0], FILES[1]]
    bad = next(p for p in FILES if p.name in REFUSED)
    with pytest.raises(MatFileError, match="the replay gives"):
        read_mat_files(good + [bad])
    skipped = read_mat_files(good + [bad], errors="skip")
    assert skipped.paths == good and list(skipped.errors) == [os.fspath(bad)]
    with pytest.warns(Warning):
        warned = read_mat_files(good + [bad], errors="warn")
    assert warned.paths == good + [bad] and warned.fast == 2 and not warned.errors
    with pytest.warns(Warning):
        _same(warned.match(2), read_mat(bad, errors="warn"), bad.name)
    assert warned.match(2).problems
    with pytest.raises(MatFileError, match="errors must be"):
        read_mat_files(good, errors="ignore")
    with pytest.raises(MatFileError, match="threads"):
        read_mat_files(good, threads=0)
    with pytest.raises(MatFileError, match="list of paths"):
        read_mat_files(str(good[0]))
    with pytest.raises(MatFileError, match="path"):
        read_mat_files([b"x.mat"])  # type: ignore[list-item]
    assert len(read_mat_files([])) == 0 and read_mat_files([]).boards_after.shape == (0, 2, 25)


def test_files_that_cannot_be_read_get_read_mat_s_message(tmp_path):
    missing = tmp_path / "missing.mat"
    folder = tmp_path / "folder.mat"
    folder.mkdir()
    huge = tmp_path / "huge.mat"
    with open(huge, "wb") as f:
        f.truncate(LIMIT + 1)  # sparse
    empty = tmp_path / "empty.mat"
    empty.write_bytes(b"")
    paths = [missing, folder, huge, empty, "with\0nul.mat"]
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "fifo.mat")
        paths.append(tmp_path / "fifo.mat")
    batch = read_mat_files(paths, errors="skip")
    assert len(batch) == 0
    for path in paths:
        _, message = _read_both(Path(path))
        assert batch.errors[os.fspath(path)] == message, path
    assert "does not exist" in batch.errors[os.fspath(missing)]


def test_the_python_side_reads_where_the_scanner_has_no_reader(monkeypatch):
    class NoReader(_matscan.Scanner):
        def scan_paths(self, paths, first_index, limit):
            return False

    monkeypatch.setattr(matbatch._matscan, "Scanner", NoReader)
    batch = read_mat_files(FILES[:30])
    assert batch.fast == 30
    _same(batch.match(29), read_mat(FILES[29]), FILES[29].name)


def _variants(text: str) -> dict[str, str]:
    """The same match written the ways the reader also reads it."""
    return {
        "crlf": text.replace("\n", "\r\n"),
        "cr": text.replace("\n", "\r"),
        "tabs": re.sub(r"(?m)^( *[0-9]+\)) ", "\\1\t", text),
        "upper": text.upper().replace("POINT MATCH", "point match"),
        "words": re.sub(r"/0\b", "/off", text.replace(" 25/", " bar/")),
        "numbers": text.replace("bar/", "25/").replace("/off", "/0"),
        "accepts": text.replace("Takes", "Accepts").replace("Drops", "Passes"),
        "hits": re.sub(r"(\d+/\d+)", "\\1*", text, count=40),
        "chains": re.sub(r"\b([0-9]+)/([0-9]+) \2/([0-9]+)\b", "\\1/\\2/\\3", text),
        "commas": text.replace(": 13/", ": 13/").replace(" 8/5 6/5", " 8/5,6/5"),
        "no crawford": text.replace('[Crawford "On"]', '[Crawford "Off"]'),
        "money": re.sub(r"(?m)^ *[0-9]+ point match", " 0 point match", text),
        "cube limit": text.replace('[CubeLimit "1024"]', '[CubeLimit "2"]'),
        "comments": text.replace("\n Game", "\n; a comment\n# another\n Game"),
        "unnumbered": re.sub(r"(?m)^ *[0-9]+\) ", "     ", text),
        "jacoby": re.sub(r"(?m)^ *[0-9]+ point match", " 0 point match", text).replace(
            "; [Crawford", '; [Jacoby "On"]\n; [Crawford'),
        "names on two lines": re.sub(r"(?m)^( \S+ : [0-9]+) +(\S+ : [0-9]+)$", "\\1\n \\2", text),
        "resigned at once": text[:text.index(" Game 1\n")] + " Game 1\n" + text.split(" Game 1\n")[1].split("\n")[0]
        + "\n      Wins 1 point\n",
        "glued numbers": re.sub(r"(?m)^( *[0-9]+\) .*\S)$", "\\1 12)", text, count=5),
        "nameless": re.sub(r"(?m)^ \S+ : 0( +\S+ : 0)$", " : 0\\1", text, count=1),
    }


@pytest.mark.parametrize("name", ["galaxy/match10013413.txt", "galaxy/match6800849.txt", "galaxy/match9700805.txt",
                                  "studio/match1278964.txt", "studio/Llabba - Ophris 13pt Backgammon Studio "
                                  "2023_10_09 19_40_36.txt"])
def test_other_spellings_are_read_alike_and_by_the_scanner(name):
    text = (CORPUS / name).read_text("utf-8")
    for kind, variant in _variants(text).items():
        data = variant.encode()
        _check_one(data, f"{name}, {kind}")
        if _read_both(data)[1] is None:
            assert matbatch._read_mat_texts([data]).fast == 1, kind


def test_letters_past_ascii_in_names_tags_and_comments():
    text = (CORPUS / "galaxy" / "match10013413.txt").read_text("utf-8")
    assert "lasse" in text and "\n Game 2\n" in text
    by_scanner = {  # the text, and whether the scanner reads it
        "utf-8 names": (text.replace("lasse", "Jørgen Ærø").encode("utf-8"), True),
        "latin-1 names": (text.replace("lasse", "Jørgen").encode("latin-1"), True),
        "byte-order mark": (("\ufeff" + text).encode("utf-8"), True),
        "tag": (text.replace("; [Site", '; [Event "名人戦 ½"]\n; [Site').encode("utf-8"), True),
        "comment": (text.replace("\n Game 2\n", "\n; é à ü 名\n Game 2\n").encode("utf-8"), True),
        # the file is no UTF-8: all of it is Latin-1, the header's "é" in UTF-8 too ("Ã©")
        "utf-8 header, latin-1 below": (text.replace('; [Site "', '; [Site "é').replace("lasse", "Jérôme").encode(
            "utf-8").replace(b"\n Game 2\n", b"\n; \xe9\n Game 2\n"), True),
        "mark on latin-1": (b"\xef\xbb\xbf" + text.replace("lasse", "Jørgen").encode("latin-1"), False),
        "no-break space": (text.replace("lasse :", "lasse\u00a0:").encode("utf-8"), False),
        "line separator": (text.replace('; [Site "', '; [Site "\u2028').encode("utf-8"), False),
        "next line": (text.replace("lasse", "la\x85sse").encode("latin-1"), False),
        "soft hyphen": (text.replace("lasse", "la\u00adsse").encode("utf-8"), False),
        "move line": (text.replace(" 13/8 ", " 13/8 é ", 1).encode("utf-8"), False),
    }
    for kind, (data, fast) in by_scanner.items():
        _check_one(data, kind)
        assert matbatch._read_mat_texts([data], errors="skip").fast == fast, kind
    batch = matbatch._read_mat_texts([d for d, _ in by_scanner.values()], errors="skip")
    assert (batch.play_match >= 0).all() and len(set(batch.play_match.tolist())) == len(batch)


def _check_one(data: bytes, where: str = "") -> None:
    """The scanner's reading of *data* is read_mat's, or it is left to read_mat (and then
    read as read_mat reads it, or refused with its message)."""
    batch = matbatch._read_mat_texts([data], errors="skip")
    theirs, message = _read_both(data)
    if message is not None:
        assert batch.errors == {data: message}, where
        assert len(batch) == 0
        return
    assert len(batch) == 1 and not batch.errors, where
    _same(batch.match(0), theirs, where)


# ---------------------------------------------------------------- damaged texts

SEEDS = [FILES[int(i)].read_bytes().split(b"\n Game 3\n")[0] for i in np.linspace(0, len(FILES) - 1, 12)]
WORDS = [b"Doubles => 2", b"Takes", b"Drops", b"Accepts", b"Passes", b"Rejects", b"Wins 1 point", b"Wins 2 points",
         b"Losses 1 point", b"Concedes", b"Beavers", b"bar/", b"/off", b"25/", b"/0", b"*", b"(2)", b"(4)", b"????",
         b" ????", b"00: ????", b"Cannot Move", b"-", b" Game 2\n", b" 3 point match", b"\r\n", b"\r", b"\t", b": ",
         b"; [Crawford \"Off\"]", b"; [CubeLimit \"1\"]", b"; [Jacoby \"On\"]", b"; [Variation \"x\"]", b"\x00",
         b"\xe9", "名".encode("utf-8"), b"/", b"13/8", b"11)", b" 1)", b"Game", b"1"]

MOVE_PIECES = [b"1", b"2", b"5", b"6", b"8", b"13", b"24", b"25", b"0", b"00", b"123", b"/", b"/", b"*", b"**", b"(2)",
               b"(4)", b"(5)", b"(", b")", b"bar", b"BAR", b"off", b"Off", b" ", b" ", b",", b"\t", b"/off", b"bar/",
               b"-", b"cannot move", b"?"]


@st.composite
def damaged_texts(draw) -> bytes:
    """A corpus match (its first two games) damaged one to three times: a digit changed,
    words of the format put somewhere, a play's text replaced by pieces of move text,
    lines swapped or dropped, bytes overwritten, inserted or cut."""
    buf = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 3))):
        n = len(buf)
        at = draw(st.integers(0, n))
        op = draw(st.sampled_from(["digit", "digit", "word", "word", "play", "play", "line", "bytes", "cut", "delete"]))
        rolls = [m.end() for m in re.finditer(rb"[0-9][0-9]: ", bytes(buf))]
        if op == "play" and rolls:  # a play's text replaced by pieces of move text
            start = draw(st.sampled_from(rolls))
            end = start
            while end < len(buf) and buf[end:end + 2] not in (b"  ", b"\n") and buf[end] != 10:
                end += 1
            buf[start:end] = b"".join(draw(st.lists(st.sampled_from(MOVE_PIECES), max_size=10)))
        elif op == "digit":
            digits = [i for i in range(max(0, at - 300), min(n, at + 300)) if 48 <= buf[i] <= 57]
            if digits:
                buf[draw(st.sampled_from(digits))] = draw(st.integers(48, 57))
        elif op == "word":
            buf[at:at] = draw(st.sampled_from(WORDS))
        elif op == "line":
            lines = bytes(buf).split(b"\n")
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            if draw(st.booleans()):
                del lines[i]
            else:
                lines[i], lines[j] = lines[j], lines[i]
            buf = bytearray(b"\n".join(lines))
        elif op == "bytes":
            buf[at:at + draw(st.integers(0, 4))] = draw(st.binary(min_size=1, max_size=6))
        elif op == "cut":
            del buf[at:]
        else:
            del buf[at:at + draw(st.integers(1, 40))]
    return bytes(buf)


@settings(max_examples=700, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(damaged_texts())
def test_damaged_texts_are_read_as_read_mat_reads_them_or_left_to_it(data):
    _check_one(data)


def test_every_cut_of_a_match():
    # the text cut after each of its bytes: the scanner reads or leaves every prefix (and
    # never reads past its end); every 25th is checked against read_mat
    data = SEEDS[3]
    cuts = [data[:k] for k in range(len(data) + 1)]
    batch = matbatch._read_mat_texts(cuts, errors="skip")
    assert len(batch) + len(batch.errors) == len(cuts) and batch.fast > len(cuts) // 3
    for cut in cuts[::25]:
        _check_one(cut, f"{len(cut)} bytes")


def test_the_fuzz_reaches_the_scanner():
    # the damage above leaves most texts to the scanner: the fuzz tests its reading, not
    # only its giving up
    rng = np.random.default_rng(3)
    texts = []
    for _ in range(200):
        data = bytearray(SEEDS[int(rng.integers(len(SEEDS)))])
        digits = [k for k in range(len(data)) if 48 <= data[k] <= 57]
        data[digits[int(rng.integers(len(digits)))]] = int(rng.integers(48, 58))
        texts.append(bytes(data))
    batch = matbatch._read_mat_texts(texts, errors="skip")
    assert batch.fast >= 40, (batch.fast, len(batch.fallbacks), len(batch.errors))
