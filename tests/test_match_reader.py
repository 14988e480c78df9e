"""``fastgen.read_match``: one entry point for every match format, told from the content;
``read_matches`` and ``fastgen analyse`` on folders that mix them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import fastgen
from fastgen.errors import MatFileError, SgfFileError, XgFileError
from fastgen.formats.reader import match_files, match_format

from _child import run_python

GBF = Path(__file__).parent / "data" / "matches" / "gbf"


def _games(match):
    return [([tuple(a) for a in g.record], g.winner, g.points) for g in match.games]


def test_the_format_is_told_from_the_content_not_the_name(tmp_path):
    text = (GBF / "test.txt").read_bytes()
    sgf = (GBF / "test.sgf").read_bytes()
    assert match_format(text[:64]) == "mat" and match_format(sgf[:64]) == "sgf"
    assert match_format((GBF / "test.xg").read_bytes()[:64]) == "xg"
    (tmp_path / "a.xg").write_bytes(text)  # misnamed files read all the same
    (tmp_path / "b.txt").write_bytes(sgf)
    assert _games(fastgen.read_match(tmp_path / "a.xg")) == _games(fastgen.read_match(GBF / "test.txt"))
    assert _games(fastgen.read_match(str(tmp_path / "b.txt"))) == _games(fastgen.read_match(GBF / "test.sgf"))


def test_one_match_in_four_formats_reads_alike():
    # the same live match: eXtreme Gammon's .xg and text export, GNU Backgammon's .sgf and .mat
    text = fastgen.read_match(GBF / "test.txt")
    assert _games(fastgen.read_match(GBF / "test.xg")) == _games(text)
    assert _games(fastgen.read_match(GBF / "test.sgf")) == _games(text)
    assert _games(fastgen.read_match(GBF / "test.mat")) == _games(text)
    assert fastgen.read_match(GBF / "test.sgf").names == text.names


def test_bytes_and_text_are_read_too():
    data = (GBF / "test.sgf").read_bytes()
    assert _games(fastgen.read_match(data)) == _games(fastgen.read_match(data.decode("utf-8")))
    text = (GBF / "test.txt").read_text("utf-8-sig")
    assert _games(fastgen.read_match(text)) == _games(fastgen.read_match(GBF / "test.txt"))


def test_each_format_raises_its_own_match_file_error(tmp_path):
    cut = tmp_path / "cut"
    cut.write_bytes((GBF / "test.sgf").read_bytes()[:5000])
    with pytest.raises(SgfFileError, match="cut"):
        fastgen.read_match(cut)
    cut.write_bytes((GBF / "test.xg").read_bytes()[:20000])
    with pytest.raises(XgFileError, match="cut"):
        fastgen.read_match(cut)
    for bad in (tmp_path / "missing.mat", tmp_path, 3.5, None):
        with pytest.raises(MatFileError):
            fastgen.read_match(bad)
    with pytest.raises(MatFileError, match="errors must be"):
        fastgen.read_match(GBF / "test.txt", errors="ignore")


def test_a_folder_mixing_formats(tmp_path):
    for name in ("test.txt", "test.sgf", "test.mat", "test.xg", "notes.md"):
        shutil.copyfile(GBF / name if name != "notes.md" else GBF.parent / "README.md", tmp_path / name)
    files = match_files(tmp_path)
    assert [p.name for p in files] == ["test.mat", "test.sgf", "test.txt", "test.xg"]
    matches = fastgen.read_matches(tmp_path)
    assert len(matches) == 4 and all(_games(m) == _games(matches[0]) for m in matches)
    assert len(fastgen.read_matches(files[:2])) == 2


def test_fastgen_analyse_takes_every_format_and_mixed_folders(tmp_path):
    for name in ("test.sgf", "test.txt", "test.xg"):
        shutil.copyfile(GBF / name, tmp_path / name)
    done = run_python("-m", "fastgen", "analyse", str(tmp_path / "test.sgf"), cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Kévin Unger" in done.stdout and "Overall statistics" in done.stdout
    done = run_python("-m", "fastgen", "analyse", str(tmp_path), "--json", cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count('"source"') >= 3


def test_warn_reaches_every_reader():
    # a live match where a move XG itself marks invalid stood (game 7)
    path = GBF / "Squire-Jørgensen-Harmand-Unger 7 point match 18-08-2024.xg"
    with pytest.raises(XgFileError, match="game 7"):
        fastgen.read_match(path)
    with pytest.warns(fastgen.formats.MatFileWarning):
        match = fastgen.read_match(path, errors="warn")
    assert match.problems and len(match.games) >= 7
