"""GNU Backgammon's weights files read by fastgen.nets.gnubg_weights.

- The real files, where installed (each test skips with a visible reason otherwise):
  Debian's ``/usr/lib/gnubg/gnubg.wd`` (gnubg 1.07, version 1.00, binary), the gnubg-nn
  package's ``gnubg.weights`` (1.01, gnubg-nn's text layout with a name line before each
  net, in another order), and the ``gnubg`` package's ``gnubg.wd`` and ``gnubg.weights``
  (1.01). The race net and the three pruning nets of the 1.00 file equal gnubg-nn's 1.01
  ones bit for bit while contact and crashed differ (gnubg retrained only those two for
  1.01): a strong check that both readers take the nets and the arrays in the right order.
- A binary file written here (a small writer of the layout, below) from the text file's
  arrays reads back equal, in either byte order.
- Small hand-made files for each fault: truncated, foreign, unknown version, a wrong
  count, a non-finite number; each refused with NetworkFileError naming the file (a FIFO:
  tests/test_file_hardening.py checks every reader at once).
- The search order of find_weights, with the environment variable and the candidate
  lists replaced.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import fastgen
from fastgen.errors import GnubgWeightsNotFoundError, NetworkFileError
from fastgen.nets import gnubg_weights as gw
from fastgen.nets.gnubg_weights import NET_SHAPES, GnubgNet, GnubgWeights, find_weights, read_weights

DEBIAN = "/usr/lib/gnubg/gnubg.wd"
#: Debian's gnubg 1.07 file: 408,016 bytes; its digest as read here.
DEBIAN_DIGEST = "c369a4935a1b7ead"
#: The 1.01 weights (the gnubg and gnubg-nn packages' files, in any layout).
V101_DIGEST = "2ab3d498e3985946"
RETRAINED = {"contact", "crashed"}  # the nets that differ between 1.00 and 1.01


def _package_file(module: str, name: str) -> str | None:
    spec = importlib.util.find_spec(module)
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = os.path.join(folder, "data", name)
        if os.path.isfile(path):
            return path
    return None


def _need(path: str | None, what: str, how: str) -> str:
    if path is None or not os.path.isfile(path):
        pytest.skip(f"{what} not installed: {how}")
    return path


@pytest.fixture(scope="module")
def debian() -> GnubgWeights:
    return read_weights(_need(DEBIAN, f"Debian's GNU Backgammon weights {DEBIAN}", "apt-get install gnubg"))


@pytest.fixture(scope="module")
def nn() -> GnubgWeights:
    path = _package_file("gnubg_nn", "gnubg.weights")
    return read_weights(_need(path, "the gnubg-nn package's weights", "pip install gnubg-nn"))


# --------------------------------------------------------------------------- writers of the layouts


def write_binary(path: Path, nets: dict[str, GnubgNet], version: float = 1.01, order: str = "<",
                 magic: float = gw.MAGIC) -> Path:
    """The binary layout (gnubg.wd): magic, version, then per net four int32, two float32
    and the arrays, in gnubg's net order."""
    f4, i4 = order + "f4", order + "i4"
    parts = [np.array([magic, version], f4).tobytes()]
    for name in NET_SHAPES:
        net = nets[name]
        parts.append(np.array([net.inputs, net.hidden, net.outputs, 1], i4).tobytes())
        parts.append(np.array([net.beta_hidden, net.beta_output], f4).tobytes())
        parts += [np.ascontiguousarray(a, f4).tobytes() for a in net.arrays]
    path.write_bytes(b"".join(parts))
    return path


def text_lines(nets: dict[str, GnubgNet], version: str = "1.01", names: bool = False) -> list[str]:
    """The text layout (gnubg.weights), or gnubg-nn's (*names*: a name line before each net,
    in its order)."""
    order = ["race", "prune race", "crashed", "prune crashed", "contact", "prune contact"] if names else NET_SHAPES
    lines = [f"GNU Backgammon {version}"]
    for name in order:
        net = nets[name]
        if names:
            lines.append("contact contact250" if name == "contact" else name)
        lines.append(f"{net.inputs} {net.hidden} {net.outputs} 0 {net.beta_hidden:.7f} {net.beta_output:.7f}")
        lines += [repr(float(x)) for a in net.arrays for x in a.ravel()]
    return lines


def write_text(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="ascii")
    return path


def random_nets(seed: int = 0) -> dict[str, GnubgNet]:
    rng = np.random.default_rng(seed)
    nets = {}
    for name, (i, h, o) in NET_SHAPES.items():
        arrays = [rng.normal(0, 1, shape).astype(np.float32) for shape in ((i, h), (o, h), (h,), (o,))]
        nets[name] = GnubgNet(name, i, h, o, float(np.float32(0.1)), 1.0, *arrays)
    return nets


def same_bits(a: GnubgNet, b: GnubgNet) -> bool:
    return all(np.array_equal(x.view(np.uint32), y.view(np.uint32)) for x, y in zip(a.arrays, b.arrays)) and (
        (a.name, a.inputs, a.hidden, a.outputs, a.beta_hidden, a.beta_output)
        == (b.name, b.inputs, b.hidden, b.outputs, b.beta_hidden, b.beta_output))


@pytest.fixture(scope="module")
def nets() -> dict[str, GnubgNet]:
    return random_nets()


@pytest.fixture
def good(tmp_path, nets) -> bytes:
    return write_binary(tmp_path / "good.wd", nets).read_bytes()


# --------------------------------------------------------------------------- the real files


def _check_shapes(w: GnubgWeights) -> None:
    assert list(w.nets) == list(NET_SHAPES)
    for name, net in w.nets.items():
        i, h, o = NET_SHAPES[name]
        assert (net.name, net.inputs, net.hidden, net.outputs) == (name, i, h, o)
        assert [a.shape for a in net.arrays] == [(i, h), (o, h), (h,), (o,)]
        assert all(a.dtype == np.float32 and not a.flags.writeable for a in net.arrays)
        assert (net.beta_hidden, net.beta_output) == (float(np.float32(0.1)), 1.0)  # all six nets [source]
        assert all(np.isfinite(a).all() for a in net.arrays)


def test_debians_binary_file(debian):
    assert (debian.version, debian.layout, debian.path) == ("1.00", "binary", DEBIAN)
    assert os.path.getsize(DEBIAN) == 408_016
    _check_shapes(debian)
    assert debian.digest == DEBIAN_DIGEST
    with pytest.raises(AttributeError):  # frozen
        setattr(debian, "version", "1.01")  # noqa: B010
    with pytest.raises(ValueError):
        debian.nets["race"].hidden_weights[0, 0] = 1.0


def test_gnubg_nn_text_file(nn):
    assert (nn.version, nn.layout) == ("1.01", "gnubg-nn text")
    _check_shapes(nn)  # in gnubg's order, whatever the file's
    assert nn.digest == V101_DIGEST


def test_debians_100_and_gnubg_nns_101_share_race_and_pruning_nets_bit_for_bit(debian, nn):
    for name in NET_SHAPES:
        assert same_bits(debian.nets[name], nn.nets[name]) == (name not in RETRAINED), name
    for name in RETRAINED:  # the retrained nets differ in every array
        assert all(not np.array_equal(x, y) for x, y in zip(debian.nets[name].arrays, nn.nets[name].arrays))


@pytest.mark.parametrize("file", ["gnubg.wd", "gnubg.weights"])
def test_the_gnubg_packages_files_equal_gnubg_nns(file, nn):
    path = _need(_package_file("gnubg", file), f"the gnubg package's {file}", "pip install gnubg")
    w = read_weights(path)
    assert (w.version, w.layout, w.digest) == ("1.01", "binary" if file.endswith(".wd") else "text", V101_DIGEST)
    assert all(same_bits(w.nets[name], nn.nets[name]) for name in NET_SHAPES)


@pytest.mark.parametrize("order", ["<", ">"])
def test_a_binary_file_written_from_the_text_files_arrays_reads_back_equal(tmp_path, nn, order):
    path = write_binary(tmp_path / "gnubg.wd", nn.nets, 1.01, order)
    assert path.stat().st_size == 408_016
    back = read_weights(path)
    assert (back.version, back.layout, back.digest, back.path) == ("1.01", "binary", nn.digest, str(path))
    assert all(same_bits(back.nets[name], nn.nets[name]) for name in NET_SHAPES)


@pytest.mark.parametrize("layout", ["binary", "text", "gnubg-nn text"])
def test_every_layout_round_trips_random_weights(tmp_path, nets, layout):
    if layout == "binary":
        path = write_binary(tmp_path / "w.wd", nets, 1.00)
    else:
        path = write_text(tmp_path / "w.weights", text_lines(nets, "1.00", names=layout != "text"))
    w = read_weights(path)
    assert (w.version, w.layout) == ("1.00", layout)
    assert all(same_bits(w.nets[name], nets[name]) for name in NET_SHAPES)
    assert w.digest == gw._digest(nets)


# --------------------------------------------------------------------------- damaged and foreign files


def refused(path: Path, *words: str) -> str:
    with pytest.raises(NetworkFileError) as caught:
        read_weights(path)
    message = str(caught.value)
    assert repr(str(path)) in message and "GNU Backgammon weights file" in message, message
    for word in words:
        assert word in message, (word, message)
    return message


@pytest.mark.parametrize("cut, words", [
    (0, ["not one", "b''"]),
    (6, ["too few for the 8-byte header"]),
    (8 + 10, ["inside the header of its net 1 (contact)", "truncated"]),
    (8 + 24 + 4 * 32773 + 24 + 400, ["its net 2 (race) declares 28,165 numbers", "holds 100 more", "truncated"]),
    (408_016 - 1, ["its net 6 (prune race)", "truncated"]),
])
def test_a_truncated_binary_file_is_refused(tmp_path, good, cut, words):
    (tmp_path / "cut.wd").write_bytes(good[:cut])
    refused(tmp_path / "cut.wd", *words)


def test_bytes_after_the_last_net_are_refused(tmp_path, good):
    (tmp_path / "long.wd").write_bytes(good + b"\0\0\0\0")
    refused(tmp_path / "long.wd", "4 bytes after its last net")


@pytest.mark.parametrize("start", [b"\x00\x00\x80\x3f" * 4, b"<?xml version='1.0'?>", b"gnubg-OS-06-15-1-1-0xxx"])
def test_a_foreign_file_is_refused(tmp_path, start):
    (tmp_path / "foreign").write_bytes(start + b"\n" * 100)
    refused(tmp_path / "foreign", "it is not one", "472.3782", "GNU Backgammon <version>")


def test_an_unknown_version_is_refused(tmp_path, nets):
    refused(write_binary(tmp_path / "old.wd", nets, 0.91), "version 0.91", "1.00, 1.01")
    refused(write_text(tmp_path / "old.weights", text_lines(nets, "0.91")), "version '0.91'", "1.00, 1.01")
    refused(write_text(tmp_path / "new.weights", text_lines(nets, "1.02", names=True)), "version '1.02'")


def test_a_wrong_count_is_refused(tmp_path, nets):
    hidden, output, hidden_bias, output_bias = nets["race"].arrays
    narrow = dict(nets, race=GnubgNet("race", 214, 64, 5, 0.1, 1.0, hidden[:, :64], output[:, :64], hidden_bias[:64],
                                      output_bias))
    refused(write_binary(tmp_path / "w.wd", narrow), "its net 2 (race) declares 214-64-5",
            "race net is 214-128-5")
    lines = text_lines(nets)
    lines[1] = "250 128 3 0 0.1 1.0"
    refused(write_text(tmp_path / "w.weights", lines), "its net 1 (contact) declares 250-128-3")
    swapped = dict(nets, contact=nets["race"])  # a race net where the contact net belongs
    refused(write_binary(tmp_path / "s.wd", swapped), "its net 1 (contact) declares 214-128-5")


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_non_finite_number_is_refused(tmp_path, nets, bad):
    arrays = [a.copy() for a in nets["crashed"].arrays]
    arrays[1][2, 7] = bad
    damaged = dict(nets, crashed=GnubgNet("crashed", 250, 128, 5, 0.1, 1.0, *arrays))
    where = f"number {250 * 128 + 2 * 128 + 7:,} of its 32,773"
    refused(write_binary(tmp_path / "w.wd", damaged), "its net 3 (crashed)", "non-finite", where, "damaged")
    refused(write_text(tmp_path / "w.weights", text_lines(damaged)), "its net 3 (crashed)", where)
    lines = text_lines(nets, names=True)
    lines[2] = "214 128 5 0 nan 1.0"  # race's hidden beta
    refused(write_text(tmp_path / "b.weights", lines), "its net 1 (race) has the hidden beta nan")


def test_text_faults_name_the_line(tmp_path, nets):
    lines = text_lines(nets)
    lines[10] = "0.12.5"
    refused(write_text(tmp_path / "a.weights", lines), "line 11, in its net 1 (contact), is '0.12.5', not a number")
    refused(write_text(tmp_path / "b.weights", lines[:5000]), "its net 1 (contact) declares 32,773 numbers",
            "4,998 more lines", "truncated")
    refused(write_text(tmp_path / "c.weights", text_lines(nets) + ["junk"]), "follows the last net", "'junk'")
    refused(write_text(tmp_path / "d.weights", ["GNU Backgammon 1.01"]), "ends before its net 1", "truncated")
    lines = text_lines(nets)
    lines[1] = "250 128 5 0 0.1"
    refused(write_text(tmp_path / "e.weights", lines), "line 2, the header of its net 1 (contact), is",
            "not 'inputs hidden outputs")
    (tmp_path / "f.weights").write_bytes(b"GNU Backgammon 1.01\n\xff\n")
    refused(tmp_path / "f.weights", "not ASCII text (byte 20)")


def test_gnubg_nn_name_faults(tmp_path, nets):
    lines = text_lines(nets, names=True)
    refused(write_text(tmp_path / "a.weights", [lines[0], "bearoff"] + lines[2:]), "line 2 names 'bearoff'",
            "an unknown net name")
    second = lines.index("prune race")
    refused(write_text(tmp_path / "b.weights", lines[:second] + ["race"] + lines[second + 1:]),
            f"line {second + 1} names 'race', twice")
    refused(write_text(tmp_path / "c.weights", lines[:second]), "ends before the name line of its net 2")


def test_a_folder_a_missing_and_an_oversized_file_are_refused(tmp_path, monkeypatch, good):
    # (a FIFO: tests/test_file_hardening.py's check of every reader)
    refused(tmp_path / "nothing.wd", "does not exist")
    refused(tmp_path, "a folder")
    (tmp_path / "good.wd").write_bytes(good)
    monkeypatch.setattr(gw, "LIMIT", 1000)
    refused(tmp_path / "good.wd", "408,016 bytes, more than the 1,000 bytes")


# --------------------------------------------------------------------------- find_weights


@pytest.fixture
def places(tmp_path, monkeypatch):
    """Candidate files under tmp_path in place of the real ones; returns the four paths
    (gnubg_nn's, gnubg's two, the system's two), none of them created yet."""
    monkeypatch.delenv(gw.ENVIRONMENT_VARIABLE, raising=False)
    paths = [tmp_path / p for p in ("nn/gnubg.weights", "pypi/gnubg.wd", "pypi/gnubg.weights", "usr/gnubg.wd",
                                    "share/gnubg.weights")]
    for p in paths:
        p.parent.mkdir(exist_ok=True)
    monkeypatch.setattr(gw, "_package_places", lambda: [("the gnubg_nn package", [str(paths[0])]),
                                                        ("the gnubg package", [str(paths[1]), str(paths[2])])])
    monkeypatch.setattr(gw, "_system_places", lambda: [str(paths[3]), str(paths[4])])
    return paths


def test_find_weights_searches_in_order(tmp_path, monkeypatch, places):
    for p in reversed(places):
        p.write_text("x")
        assert find_weights() == str(p)
    explicit = tmp_path / "mine.wd"
    explicit.write_text("x")
    monkeypatch.setenv(gw.ENVIRONMENT_VARIABLE, str(explicit))
    assert find_weights() == str(explicit)  # the variable before the packages
    assert find_weights(places[4]) == str(places[4])  # a path given before the variable


def test_a_path_or_variable_naming_no_file_is_an_error(tmp_path, monkeypatch, places):
    places[0].write_text("x")
    with pytest.raises(GnubgWeightsNotFoundError, match="nope.wd.*the path given"):
        find_weights(tmp_path / "nope.wd")
    monkeypatch.setenv(gw.ENVIRONMENT_VARIABLE, str(tmp_path / "gone.wd"))
    with pytest.raises(GnubgWeightsNotFoundError, match=f"gone.wd.*{gw.ENVIRONMENT_VARIABLE}"):
        find_weights()
    with pytest.raises(GnubgWeightsNotFoundError, match="gone.wd"):
        read_weights()  # no path: the one find_weights finds
    monkeypatch.setenv(gw.ENVIRONMENT_VARIABLE, "")  # an empty variable is not set
    assert find_weights() == str(places[0])


def test_nothing_found_lists_every_place_looked_at(places):
    with pytest.raises(GnubgWeightsNotFoundError) as caught:
        find_weights()
    message = str(caught.value)
    assert isinstance(caught.value, NetworkFileError) and isinstance(caught.value, ValueError)
    assert f"{gw.ENVIRONMENT_VARIABLE} (not set)" in message and "apt-get install gnubg" in message
    for p in places:
        assert str(p) in message, p
    assert fastgen.nets.GnubgWeightsNotFoundError is GnubgWeightsNotFoundError


def test_read_weights_reads_the_file_found(tmp_path, monkeypatch, places, nets):
    write_binary(places[3], nets)
    w = read_weights()
    assert (w.path, w.layout, w.digest) == (str(places[3]), "binary", gw._digest(nets))


def test_the_real_candidates(tmp_path):
    system = gw._system_places()
    if sys.platform.startswith("linux"):
        assert system[0] == "/usr/lib/gnubg/gnubg.wd" and "/usr/share/gnubg/gnubg.weights" in system
        assert all(p.endswith(("gnubg.wd", "gnubg.weights")) for p in system)
    wheres = [where for where, _ in gw._package_places()]
    assert wheres[0].startswith("the gnubg_nn package") and wheres[1].startswith("the gnubg package")
    # Finding the packages' data imports neither package (nor its compiled extension).
    code = ("import sys; from fastgen.nets.gnubg_weights import _package_places as p; p(); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('gnubg', 'gnubg_nn')))")
    root = str(Path(fastgen.__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
