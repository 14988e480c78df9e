"""The command line: ``fastgen bench`` (the main job) and its arguments."""

import json

import pytest

from fastgen.cli import main


@pytest.mark.parametrize("workload", ["vectors", "random"])
def test_bench_json_reports_every_generator(capsys, workload):
    assert main(["bench", "--repeat", "1", "--oracle-sample", "21", "--json", "--workload", workload]) == 0
    data = json.loads(capsys.readouterr().out)
    names = [t["name"] for t in data["timings"]]
    assert {"plays_batch", "plays_batch threads=2", "count_plays_batch", "legal_plays loop"} <= set(names)
    assert data["workload"]["name"] == workload
    assert data["workload"]["positions"] == (42_000 if workload == "vectors" else 20_000)
    if workload == "vectors":
        assert data["workload"]["plays"] == 218_356 + 185_957 + 140_720 + 122_570
    for t in data["timings"]:
        pp = t["per_position"]
        assert 0 < pp["min"] <= pp["median"] <= pp["max"]
    assert data["speedup_vs"]["reference oracle (sample)"]["plays_batch"] > 1
    assert data["environment"]["fastgen"]


def test_bench_text_output(capsys):
    assert main(["bench", "--repeat", "1", "--oracle-sample", "21"]) == 0
    out = capsys.readouterr().out
    assert "positions/s" in out and "speed-up vs reference oracle" in out


@pytest.mark.parametrize("argv", [["bench", "--repeat", "0"], ["bench", "--workload", "nope"], ["frobnicate"], []])
def test_bad_arguments_exit_with_usage(argv, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
