"""What the displays show: the HTML report's decisions (placed as the .mat file numbers
them, the players named, errors with their unit, the cube as it stands), the plot's game
labels, the notebook displays of analyses and matches, the board pictures' labels and
pip-count size, and the hint of the environments' missing extra."""

from __future__ import annotations

import copy
import re
import xml.etree.ElementTree as ET

import pytest

import fastgen
from fastgen.formats import svg
from fastgen.analysis import analyse
from fastgen.analysis.records import mat_numbers as decision_numbers
from fastgen.errors import InvalidSVGOptionError

from _child import run_python
from _matches import random_match

pytest.importorskip("matplotlib", reason="matplotlib not installed: pip install '.[plot]'")

from fastgen.analysis import html as report  # noqa: E402  (after the skip: the plot extra)

NS = "{http://www.w3.org/2000/svg}"
_ENTRY = {"Doubles": "double", "Takes": "take", "Drops": "pass"}


@pytest.fixture(scope="module")
def match():
    m = random_match(5, 3, p_double=0.15)  # 4 games, doubles, takes and a pass
    assert len(m.games) >= 2
    return m


@pytest.fixture(scope="module")
def analysis(match):
    return analyse(match)


def mat_numbers(text: str) -> dict:
    """(game, player, kind) -> the line numbers of that player's entries of that kind, in
    order, read from .mat *text* (player 0's column left, player 1's from column 33)."""
    out: dict = {}
    game = -1
    for line in text.splitlines():
        if line.startswith(" Game "):
            game += 1
            continue
        m = re.match(r" *(\d+)\) ", line)
        if not m:
            continue
        for player, entry in ((0, line[5:33].strip()), (1, line[33:].strip())):
            if re.match(r"\d\d:", entry):
                kind = "move"
            else:
                kind = _ENTRY.get(entry.split(" ")[0]) if entry else None
            if kind:
                out.setdefault((game, player, kind), []).append(int(m.group(1)))
    return out


def expected_numbers(a, text: str) -> dict:
    """id(decision) -> its line number in the .mat file (a no double: its roll's)."""
    lines = mat_numbers(text)
    seen: dict = {}
    out = {}
    rolls = {}
    for d in a.decisions:
        if d.kind == "no double":
            continue
        key = (d.game, d.player, d.kind)
        k = seen.get(key, 0)
        seen[key] = k + 1
        out[id(d)] = lines[key][k]
        if d.kind == "move":
            rolls[d.game, d.move] = out[id(d)]
    for d in a.decisions:
        if d.kind == "no double":
            out[id(d)] = rolls[d.game, d.move]
    return out


@pytest.mark.parametrize("cube", [True, False])
def test_report_numbers_decisions_as_the_mat_file(match, cube):
    a = analyse(match, cube=cube)
    expected = expected_numbers(a, fastgen.write_mat(match))
    shown = [d for d in a.worst(len(a.decisions))]
    assert any(expected[id(d)] != d.move for d in shown)  # half-moves would differ
    assert any(d.kind != "move" for d in shown) == cube
    text = report.html_report(a, worst=len(a.decisions), plot=False)
    for d in shown:
        assert f"game {d.game + 1}, move {expected[id(d)]}, {a.names[d.player]}</b>" in text, d
    assert text.count('class="decision"') == len(shown)


def test_report_units_names_and_no_none(analysis, match):
    text = analysis.to_html(worst=5)
    assert "None" not in text
    errors = re.findall(r'class="error">error ([^<]*)<', text)
    assert len(errors) == 5 and all(re.fullmatch(r"[-+]\d+\.\d\d% MWC \([-+]\d\.\d{3} EMG\).*", e) for e in errors)
    # every drawn board names both players by their pips lines
    for block in text.split('<div class="decision"')[1:]:
        pips = re.findall(r'class="pips (mover|opponent)"[^>]*>([^<]*)<', block)
        assert {side for side, _ in pips} == {"mover", "opponent"}
        assert all(words.split(":")[0] in analysis.names for _, words in pips)
    money = random_match(0, 11, p_double=0.15, max_games=2)
    a = analyse(money)
    text = a.to_html(worst=3)
    assert "None" not in text
    errors = re.findall(r'class="error">error ([^<]*)<', text)
    assert errors and all(re.fullmatch(r"[-+]\d+\.\d{3} EMG \([-+]\d+\.\d{3} points\).*", e) for e in errors)


def test_luck_rating_is_never_printed_as_none(analysis):
    a = copy.deepcopy(analysis)
    for p in a.players:
        p.luck = p.luck_unnormalised = 0.0  # average luck: GNU Backgammon's rating name is "None"
    assert all(p.luck_rating == "None" for p in a.players)
    row = next(r for r in report.statistics_rows(a) if r[0] == "Luck rating")
    assert row[1:] == ("none (average luck)", "none (average luck)")
    assert "None" not in str(a) and "None" not in report.html_report(a, worst=0, plot=False)


def test_plot_labels_each_game(analysis, match):
    text = report.html_report(analysis, worst=0)
    root = ET.fromstring(text[text.index("<svg"):text.index("</svg>") + 6])
    labels = {g.get("id"): "".join(g.itertext()).strip() for g in root.iter(f"{NS}g")
              if (g.get("id") or "").startswith("game-")}
    # "game N" over each game's stretch; just "N" over one too short for the words
    assert set(labels) == {f"game-{i + 1}" for i in range(len(match.games))}
    assert all(words in (f"game {k[5:]}", k[5:]) for k, words in labels.items())
    assert sum(words.startswith("game ") for words in labels.values()) >= 2
    assert "The worst decisions" not in text


def test_take_and_double_draw_the_cube_as_it_stands(analysis):
    numbers = decision_numbers(analysis.decisions)
    seen = set()
    for d in analysis.cube_decisions:
        if d.kind == "no double":
            continue
        block = report._decision_html(analysis, d, numbers[id(d)])
        root = ET.fromstring(block[block.index("<svg"):block.index("</svg>") + 6])
        cube = next(g for g in root.iter(f"{NS}g") if g.get("class") == "cube")
        v = d.state.cube_value
        if d.kind in ("take", "pass"):  # doubled, on the taker's side (row 0)
            assert (cube.get("data-value"), cube.get("data-owner")) == (str(2 * v), "opponent")
            assert f"the cube at {2 * v}" in block
        else:  # the doubler on roll (row 1), the cube before the double
            owner = d.state.cube_owner
            where = "centre" if owner is None else "mover" if owner == d.player else "opponent"
            assert (cube.get("data-value"), cube.get("data-owner")) == (str(v), where)
            assert f"doubled to {2 * v}" in block
        pips = {t.get("class"): t.text for t in root.iter(f"{NS}text") if "pips" in (t.get("class") or "")}
        doubler = d.player if d.kind == "double" else 1 - d.player
        assert pips["pips mover"].startswith(f"{analysis.names[doubler]}: ")
        assert pips["pips opponent"].startswith(f"{analysis.names[1 - doubler]}: ")
        seen.add(d.kind)
    assert {"double", "take"} <= seen


def test_analysis_displays_itself_in_a_notebook(analysis):
    text = analysis._repr_html_()
    assert text.startswith('<div class="fastgen-analysis">') and "<!DOCTYPE" not in text
    assert text.count("<svg") == 1 and "Chequerplay statistics" in text  # the plot and the table
    assert all(name in text for name in analysis.names) and "None" not in text


def test_match_displays_itself_in_a_notebook(match):
    text = match._repr_html_()
    s0, s1 = match.score
    assert f"Alice {s0} - {s1} Bob Smith" in text and "5-point match" in text
    assert text.count("<tr>") == len(match.games) + 1
    for i, g in enumerate(match.games):
        b0, b1 = match.scores_before(i)
        row = text.split(f"<td>game {i + 1}")[1].split("</tr>")[0]
        assert f"<td>{b0}-{b1}</td>" in row and f"<td>{g.points}</td>" in row
        assert match.names[g.winner] in row
    odd = fastgen.Match(3, names=("<b>Ann</b>", "Bo & Co"))
    odd.new_game()
    text = odd._repr_html_()
    assert "&lt;b&gt;Ann&lt;/b&gt;" in text and "Bo &amp; Co" in text and "<b>Ann</b>" not in text
    assert "under way" in text and "playing" in text


def info_px(text: str) -> float:
    """The pips lines' font size in pixels as the picture is drawn."""
    root = ET.fromstring(text)
    group = next(g for g in root.iter(f"{NS}g") if g.get("class") == "info")
    return float(group.get("font-size")) * float(root.get("width")) / float(root.get("viewBox").split()[2])


def test_pip_counts_are_readable(analysis):
    assert info_px(svg.board(fastgen.STARTING_BOARD)) >= 11  # the default 400 px picture
    html = analysis.to_html(worst=1)
    board = html[html.index('<div class="decision"'):]
    board = board[board.index("<svg"):board.index("</svg>") + 6]
    assert 11 <= info_px(board) <= 14


def test_a_board_after_a_play_names_who_played():
    before = fastgen.STARTING_BOARD
    play = fastgen.parse_play(before, (3, 1), "8/5 6/5")
    after = play._repr_svg_()
    words = [t.text for t in ET.fromstring(after).iter(f"{NS}text") if t.get("class") == "pips mover"]
    assert words[0].endswith("(played)") and "(on roll)" not in after
    named = svg.board(play.board_after, play=play, dice=(3, 1), names=("Bob", "Ann"), played=True)
    assert "Ann: " in named and "(played)" in named and "Bob: " in named
    assert "(on roll)" in svg.board(before, dice=(3, 1), names=("Bob", "Ann"))
    with pytest.raises(InvalidSVGOptionError, match="names"):
        svg.board(before, names="Ann")
    long = svg.board(before, names=("B" * 40, "A"))
    assert "B" * 23 + "\u2026" in long and "B" * 24 not in long


def test_a_game_won_shows_the_winner_as_having_played():
    g = fastgen.Game(seed=4)
    while not g.over:
        g.roll()
        g.play(g.legal_plays().boards[0])
    assert "(played)" in g._repr_svg_() and "(on roll)" not in g._repr_svg_()


def test_environments_without_their_extra_name_it():
    code = (
        "import sys\n"
        "sys.modules['gymnasium'] = None\n"
        "import fastgen.envs\n"
        "fastgen.envs.micro_mask\n"  # the numpy-only helpers still load
        "for name in ('BackgammonEnv', 'VectorBackgammon', 'backgammon_v0'):\n"
        "    try:\n"
        "        getattr(fastgen.envs, name)\n"
        "    except ModuleNotFoundError as exc:\n"
        "        print(exc)\n"
    )
    out = run_python("-c", code, timeout=120)  # from the temporary directory: the installed fastgen
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 3
    for name, line in zip(("BackgammonEnv", "VectorBackgammon", "backgammon_v0"), lines):
        assert f"fastgen.envs.{name} needs gymnasium" in line and "pip install" in line and "[rl]" in line


def test_cube_decision_draws_itself_ranked_as_gnubg():
    from fastgen.cube import cube_action

    d = cube_action(fastgen.STARTING_BOARD, [0.7, 0.2, 0.01, 0.05, 0.002], fastgen.MatchState())
    text = d._repr_html_()
    assert "Proper cube action: Double, take" in text
    labels = [label for label, *_ in d.ranked]
    assert labels == ["Double, take", "Double, pass", "No double"]
    assert [text.index(f"<td>{label}</td>") for label in labels] == sorted(text.index(f"<td>{label}</td>")
                                                                         for label in labels)
    assert "<td>+0.088</td>" in text and "<td>-0.137</td>" in text  # the costs against the first line


def test_rollout_table_draws_itself():
    table = fastgen.rollout_plays(fastgen.STARTING_BOARD, (3, 1), evaluator=fastgen.players.evaluators.baseline(),
                                  trials=36, seed=1)
    text = table._repr_html_()
    names = [str(r.play) for r in table.rows]
    assert text.startswith('<div class="fastgen-rollout">') and "36 trials" in text
    assert [text.index(f"<td>{n}</td>") for n in names] == sorted(text.index(f"<td>{n}</td>") for n in names)
    assert f"<td>{table.rows[0].equity:+.3f}</td>" in text and "not rolled out" not in text
