"""Hypothesis fuzzing of the file readers: networks, training checkpoints, supervised
training data sets and match equity tables.

Each reader is handed valid files damaged the ways files get damaged (cut short, bytes
overwritten, bytes inserted) and the ways a careless or hostile user damages them (an
array replaced by one of another dtype or shape or by absurd values; a field of a JSON
state replaced by another JSON value, a huge number or a deep nesting; table entries
moved or overwritten). A reader may only answer something usable or raise its own
:class:`~fastgen.errors.FastgenError`; any other exception, a crash or a hang fails.
What is accepted is used: a loaded network evaluates to five probabilities in [0, 1], a
checkpoint's settings make a valid TDConfig, a data set trains the compiled learner to
finite losses, a table decides cube actions with match-winning chances in [0, 1].

Counts, per run (every profile, derandomized in CI's ``ci`` profile): 500 damaged
network files and 200 network files with replaced arrays, 300 tampered checkpoint
states, 120 damaged data sets and 300 damaged match equity tables: 1,420 files. The
reader faults this fuzz finds when a check is taken out: an impossible board reaching
the compiled learner (a crash), six foreign exceptions of the network reader
(zlib.error, RuntimeError, NotImplementedError, tokenize.TokenError, RecursionError,
MemoryError), the training state's KeyError / TypeError / AttributeError /
OverflowError / RecursionError, absurd training targets trained on, and match equity
tables that are not monotone or not chances.
"""

from __future__ import annotations

import io
import json
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import fastgen
from fastgen.core.state import MatchState
from fastgen.cube import cube_action
from fastgen.errors import FastgenError
from fastgen.nets import Network
from fastgen.train import SuperviseConfig, TDConfig, refine, supervise
from fastgen.train.checkpoint import Checkpoint, read_checkpoint, write_checkpoint

_FIXTURES = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large]


def _net(hidden: int = 6) -> Network:
    rng = np.random.default_rng(1)
    return Network([rng.normal(0, 0.1, (198, hidden)), rng.normal(0, 0.1, (hidden, 5))],
                   [np.zeros(hidden), np.zeros(5)], about={"name": "fuzz"})


def _bytes(net: Network) -> bytes:
    buf = io.BytesIO()
    net.save(buf)
    return buf.getvalue()


@st.composite
def damaged(draw, data: bytes) -> bytes:
    """*data* cut short, with bytes overwritten or inserted (one to four edits)."""
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["cut", "overwrite", "insert", "zero run"]))
        at = draw(st.integers(0, max(len(out) - 1, 0)))
        if kind == "cut":
            del out[at:]
        elif kind == "overwrite" and out:
            chunk = draw(st.binary(min_size=1, max_size=8))
            out[at:at + len(chunk)] = chunk
        elif kind == "insert":
            out[at:at] = draw(st.binary(min_size=1, max_size=8))
        else:
            out[at:at + draw(st.integers(1, 64))] = b"\0" * 64
    return bytes(out)


def _usable(net) -> None:
    probs = np.asarray(net(fastgen.STARTING_BOARD[None]))
    assert probs.shape == (1, 5) and np.isfinite(probs).all() and (probs >= 0).all() and (probs <= 1).all()


GOOD = _bytes(_net())


@settings(max_examples=500, suppress_health_check=_FIXTURES, deadline=None)
@given(st.data())
def test_damaged_network_files(data):
    blob = data.draw(damaged(GOOD))
    try:
        net = Network.load(io.BytesIO(blob))
    except FastgenError:
        return
    _usable(net)


ARRAYS = st.one_of(
    st.just(np.array("fastgen-network")), st.just(np.array(1)), st.just(np.array([np.nan, 1.0])),
    st.builds(lambda n: np.zeros((n,), np.int8), st.integers(0, 300)),
    st.builds(lambda a, b: np.ones((a, b), np.float32), st.integers(0, 250), st.integers(0, 9)),
    st.builds(lambda a, b: np.full((a, b), 1e30), st.integers(1, 250), st.integers(1, 9)),
    st.just(np.array(["tesauro198", "nonsense"])), st.just(np.array("relu")), st.just(np.array(True)),
    st.just(np.array("{" * 5000)), st.just(np.array(json.dumps({"a": [1, 2]}))),
)


@settings(max_examples=200, suppress_health_check=_FIXTURES, deadline=None)
@given(st.data())
def test_network_files_with_replaced_arrays(data):
    with np.load(io.BytesIO(GOOD), allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    for _ in range(data.draw(st.integers(1, 3))):
        key = data.draw(st.sampled_from(sorted(arrays) + ["w9", "b9", "about", "schemes"]))
        if data.draw(st.booleans()) and key in arrays:
            del arrays[key]
        else:
            arrays[key] = data.draw(ARRAYS)
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    try:
        net = Network.load(io.BytesIO(buf.getvalue()))
    except FastgenError:
        return
    _usable(net)


JSON = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
                    max_leaves=12)
ODD = st.one_of(JSON, st.just("[" * 50_000 + "]" * 50_000), st.just(10 ** 400), st.just(1e400),
                st.just(float("nan")), st.just(-1), st.just("40"), st.just(True))


@pytest.fixture(scope="module")
def checkpoint_arrays(tmp_path_factory):
    path = tmp_path_factory.mktemp("ck") / "ck.npz"
    config = TDConfig(games=40, hidden=6, sync=20, eval_every=20, eval_games=0, seed=1)
    curve = [{"games": 20, "seconds": 0.1, "loss": 0.2, "lr": 0.1}, {"games": 40, "seconds": 0.2, "loss": 0.1, "lr": 0.1}]
    import dataclasses

    write_checkpoint(path, Checkpoint(_net(), "td", dataclasses.asdict(config), 40, 0.2, curve))
    read_checkpoint(path)  # the untouched file is read
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def _tamper(state, data):
    """*state* with one value, at a path drawn through its dicts and lists, replaced
    (or the key deleted), or the whole state replaced."""
    if data.draw(st.integers(0, 9)) == 0:
        return data.draw(ODD)
    node = state
    while True:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        key = data.draw(st.sampled_from(keys))
        child = node[key]
        if isinstance(child, (dict, list)) and child and data.draw(st.booleans()):
            node = child
            continue
        if isinstance(node, dict) and data.draw(st.integers(0, 4)) == 0:
            del node[key]
        else:
            node[key] = data.draw(ODD)
        return state


@settings(max_examples=300, suppress_health_check=_FIXTURES, deadline=None)
@given(st.data())
def test_tampered_checkpoint_states(checkpoint_arrays, tmp_path, data):
    arrays = dict(checkpoint_arrays)
    state = _tamper(json.loads(str(arrays["train_state"])), data)
    try:
        text = json.dumps(state)
    except (RecursionError, ValueError):
        text = "[" * 100_000
    arrays["train_state"] = np.array(text)
    path = tmp_path / "t.npz"
    np.savez(path, **arrays)
    try:
        ck = read_checkpoint(path)
    except FastgenError:
        return
    TDConfig(**ck.config)
    assert isinstance(ck.games, int) and ck.games >= 0 and np.isfinite(ck.seconds)
    assert all(isinstance(p, dict) and isinstance(p["games"], int) for p in ck.curve)


DATA = SuperviseConfig(positions=10, trials=1, truncate=1, epochs=1, shard=5, seed=3)


@pytest.fixture(scope="module")
def data_set(tmp_path_factory):
    """A finished data set of DATA for _net() (10 positions, two shards): its files."""
    folder = tmp_path_factory.mktemp("data")
    supervise(_net(), folder, DATA)
    return {name: (folder / name).read_bytes() for name in os.listdir(folder)}


VALUES = st.one_of(st.integers(-128, 127), st.just(15), st.just(-1))
TARGETS = st.one_of(st.floats(-3, 4), st.just(1e6), st.just(float("nan")), st.just(float("-inf")))


@settings(max_examples=120, suppress_health_check=_FIXTURES, deadline=None)
@given(st.data())
def test_damaged_training_data(data_set, tmp_path, data):
    folder = tmp_path / "d"
    folder.mkdir(exist_ok=True)
    for name, blob in data_set.items():
        (folder / name).write_bytes(blob)
    name = data.draw(st.sampled_from(sorted(data_set)))
    kind = data.draw(st.sampled_from(["bytes", "values", "flood"]))
    if kind == "flood" and name == "positions.npz":  # a board of N checkers on every point
        with np.load(io.BytesIO(data_set[name]), allow_pickle=False) as z:
            arrays = {k: z[k].copy() for k in z.files}
        rows = data.draw(st.sampled_from([slice(0, 1), slice(1, 2), slice(0, 2)]))
        arrays["boards"][data.draw(st.integers(0, 9)), rows, :] = data.draw(st.integers(2, 127))
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        (folder / name).write_bytes(buf.getvalue())
    elif kind in ("bytes", "flood") or name == "settings.json":
        (folder / name).write_bytes(data.draw(damaged(data_set[name])))
    else:
        with np.load(io.BytesIO(data_set[name]), allow_pickle=False) as z:
            arrays = {k: z[k].copy() for k in z.files}
        key = data.draw(st.sampled_from(sorted(arrays)))
        flat = arrays[key].reshape(-1)
        for _ in range(data.draw(st.integers(1, 6))):
            i = data.draw(st.integers(0, flat.size - 1))
            flat[i] = data.draw(TARGETS if flat.dtype.kind == "f" else VALUES if flat.dtype.kind == "i" else st.booleans())
        if data.draw(st.integers(0, 5)) == 0:
            arrays[key] = arrays[key][: data.draw(st.integers(0, len(arrays[key])))]
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        (folder / name).write_bytes(buf.getvalue())
    try:
        run = supervise(_net(), folder, DATA)
    except FastgenError:
        return
    assert np.isfinite(run.before) and np.isfinite(run.after)
    boards = refine._read_positions(str(folder), DATA)[0]
    fastgen.core.boards.as_boards(boards)  # every board the learner saw is a legal position


MET_TEXT = os.path.join(fastgen.__path__[0], "data", "Kazaross-XG2.xml")


@settings(max_examples=300, suppress_health_check=_FIXTURES, deadline=None)
@given(st.data())
def test_damaged_match_equity_tables(data):
    import xml.etree.ElementTree as ET

    from fastgen.cube.met_files import parse_met
    from fastgen.cube.met import MatchEquityTable

    root = ET.parse(MET_TEXT).getroot()
    pre = root.find("pre-crawford-table")
    rows = [r for r in pre.findall("row")]
    kind = data.draw(st.sampled_from(["entries", "constant", "swap", "post", "bytes"]))
    if kind == "entries":
        for _ in range(data.draw(st.integers(1, 4))):
            row = data.draw(st.sampled_from(rows))
            cells = row.findall("me")
            cell = data.draw(st.sampled_from(cells))
            cell.text = repr(data.draw(st.floats(-0.5, 1.5) | st.sampled_from([0.0, 0.5, 1.0])))
    elif kind == "constant":
        value = repr(data.draw(st.floats(0, 1)))
        for row in rows:
            for cell in row.findall("me"):
                cell.text = value
    elif kind == "swap":
        a, b = data.draw(st.sampled_from(rows)), data.draw(st.sampled_from(rows))
        ca, cb = data.draw(st.sampled_from(a.findall("me"))), data.draw(st.sampled_from(b.findall("me")))
        ca.text, cb.text = cb.text, ca.text
    elif kind == "post":
        for table in root.findall("post-crawford-table"):
            cells = table.find("row").findall("me")
            data.draw(st.sampled_from(cells)).text = repr(data.draw(st.floats(-0.5, 1.5)))
    text = ET.tostring(root)
    if kind == "bytes":
        text = data.draw(damaged(text))
    try:
        met = MatchEquityTable(parse_met(text, "fuzz.xml"))
    except FastgenError:
        return
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32)))
    for _ in range(3):
        p = np.sort(rng.random(3))
        probs = [p[2], p[1] * p[2], 0.0, p[0] * (1 - p[2]), 0.0]
        length = int(rng.integers(3, 12))
        score = (int(rng.integers(0, length - 1)), int(rng.integers(0, length - 1)))
        d = cube_action(fastgen.STARTING_BOARD, probs, MatchState(match_length=length, score=score, on_roll=0),
                        met=met)
        for value in (d.no_double, d.double_take, d.double_pass):
            assert np.isfinite(value) and -3.0 <= value <= 3.0  # normalised equities of a cube of 1
        for away in range(1, 8):
            for other in range(1, 8):
                assert 0.0 <= met.mwc(away, other) <= 1.0
