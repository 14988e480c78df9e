"""Files fastgen reads and writes, as a careless or hostile user hands them over.

Every reader comes in through fastgen.formats.checked (a regular file only, its size bounded
before anything is allocated, every decoding fault the reader's own error), and every
report is written whole or not at all. Each test builds the bad file it needs.
"""

from __future__ import annotations

import html
import io
import json
import os
import struct
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import fastgen
from fastgen.formats.checked import check_destination, parse_json, read_bytes, read_npz
from fastgen.cli.main import main
from fastgen.errors import InvalidArgumentError, MatFileError, NetworkFileError
from fastgen.nets import Network

from _matches import random_match


def _network() -> Network:
    return Network([np.full((198, 8), 0.01, np.float32), np.full((8, 5), 0.01, np.float32)],
                   [np.zeros(8, np.float32), np.zeros(5, np.float32)], inputs=("tesauro198",))


def _npy(header: str, body: bytes = b"") -> bytes:
    """An .npy member with the header dictionary *header*, padded as numpy pads it."""
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + body


def _zip(members: dict[str, bytes], method: int = zipfile.ZIP_STORED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=method) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def _one_line_error(capsys, command: str) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"fastgen {command}: error: ") and "Traceback" not in err, err
    return err


# ----------------------------------------------------------------- damaged .npz network files


def test_small_file_claiming_a_huge_array_is_refused_before_allocating(tmp_path):
    path = tmp_path / "huge.npz"
    path.write_bytes(_zip({"w0.npy": _npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1649267441664,), }",
                                          b"\0" * 40)}))
    assert path.stat().st_size < 500
    with pytest.raises(NetworkFileError, match=r"huge\.npz.*claims \(1649267441664,\) items of float32"):
        Network.load(path)


def test_zip_entry_flagged_encrypted_is_refused(tmp_path):
    data = bytearray(_zip({"w0.npy": _npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", b"\0" * 8)}))
    for sig in (b"PK\x03\x04", b"PK\x01\x02"):  # set bit 0 of the flags in the local and central headers
        i = data.index(sig)
        flags = i + (6 if sig == b"PK\x03\x04" else 8)
        data[flags] |= 1
    (tmp_path / "enc.npz").write_bytes(bytes(data))
    with pytest.raises(NetworkFileError, match=r"enc\.npz.*'w0\.npy' is encrypted"):
        Network.load(tmp_path / "enc.npz")


def test_zip_entry_of_an_unknown_compression_is_refused(tmp_path):
    data = bytearray(_zip({"w0.npy": _npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", b"\0" * 8)}))
    for sig, off in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
        i = data.index(sig) + off
        data[i:i + 2] = struct.pack("<H", 99)  # compression method 99 (AES), which zipfile cannot read
    (tmp_path / "m99.npz").write_bytes(bytes(data))
    with pytest.raises(NetworkFileError, match=r"m99\.npz.*compressed by method 99"):
        Network.load(tmp_path / "m99.npz")


def test_corrupt_deflate_stream_is_refused(tmp_path):
    net = _network()
    net.save(tmp_path / "n.npz")
    data = bytearray((tmp_path / "n.npz").read_bytes())
    i = data.index(b"w0.npy") + 40  # inside the first member's compressed data
    data[i:i + 16] = b"\xff" * 16
    (tmp_path / "z.npz").write_bytes(bytes(data))
    with pytest.raises(NetworkFileError, match=r"z\.npz"):
        Network.load(tmp_path / "z.npz")


@pytest.mark.parametrize("header", [
    "{'descr': '<f4', 'fortran_order': False, 'shape': (2,",                  # cut off: a tokenizer error
    "{'descr': '<f4', 'fortran_order': False, 'shape': " + "(" * 3000 + ")" * 3000 + ", }",  # nesting
    "{'descr': 'O', 'fortran_order': False, 'shape': (2,), }",                 # pickled objects
    "{'descr': 'V0', 'fortran_order': False, 'shape': (10**18,), }",          # zero-size items
])
def test_unparseable_or_unsafe_npy_header_is_refused(tmp_path, header):
    (tmp_path / "h.npz").write_bytes(_zip({"w0.npy": _npy(header, b"\0" * 8)}))
    with pytest.raises(NetworkFileError, match=r"h\.npz"):
        Network.load(tmp_path / "h.npz")


def test_deeply_nested_about_is_refused(tmp_path):
    buf = io.BytesIO()
    deep = '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"
    np.savez(buf, format=np.array("fastgen-network"), version=np.array(1), inputs=np.array(["tesauro198"]),
             activation=np.array("sigmoid"), w0=np.ones((198, 5), np.float32), b0=np.zeros(5, np.float32),
             about=np.array(deep))
    (tmp_path / "deep.npz").write_bytes(buf.getvalue())
    with pytest.raises(NetworkFileError, match=r"deep\.npz.*nests too deeply"):
        Network.load(tmp_path / "deep.npz")


def test_wrongly_typed_layout_arrays_are_refused(tmp_path):
    buf = io.BytesIO()
    np.savez(buf, format=np.array("fastgen-network"), version=np.array("1"), inputs=np.array(["tesauro198"]),
             activation=np.array("sigmoid"), w0=np.ones((198, 5), np.float32), b0=np.zeros(5, np.float32))
    (tmp_path / "v.npz").write_bytes(buf.getvalue())
    with pytest.raises(NetworkFileError, match=r"v\.npz.*version '1'"):
        Network.load(tmp_path / "v.npz")


def test_network_file_round_trip_is_unchanged(tmp_path):
    net = _network()
    net.save(tmp_path / "n.npz")
    back = Network.load(tmp_path / "n.npz")
    assert all(np.array_equal(a, b) for a, b in zip(back.weights, net.weights)) and back.inputs == net.inputs
    arrays = read_npz(tmp_path / "n.npz", "network file", NetworkFileError)
    assert arrays["w0"].flags.writeable and arrays["w0"].dtype == np.float32


# ----------------------------------------------------------------- special files


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_is_refused_at_once_by_every_reader(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # no writer: a reader that opened it the usual way would block forever
    code = (f"import fastgen, fastgen.nets as n, fastgen.cube.met_files as c, fastgen.nets.gnubg_weights as g\n"
            f"for call in (lambda: n.Network.load({str(fifo)!r}), lambda: fastgen.formats.read_mat({str(fifo)!r}),"
            f" lambda: c.read_met_file({str(fifo)!r}), lambda: g.read_weights({str(fifo)!r})):\n"
            f"    try: call()\n"
            f"    except fastgen.FastgenError as e: print(type(e).__name__, 'FIFO' in str(e), {str(fifo)!r} in str(e))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:4] == ["NetworkFileError True True", "MatFileError True True",
                                          "METFileError True True", "NetworkFileError True True"]


@pytest.mark.parametrize("special", ["/dev/zero", "/dev/null"])
def test_device_is_refused(special, tmp_path, capsys):
    if not os.path.exists(special):
        pytest.skip(f"{special} does not exist on this platform")
    assert main(["analyse", special]) == 2
    assert "not a regular file" in _one_line_error(capsys, "analyse")
    with pytest.raises(NetworkFileError, match="character device"):
        Network.load(special)


def test_folder_is_refused(tmp_path):
    with pytest.raises(MatFileError, match="it is a folder"):
        read_bytes(tmp_path, ".mat file", MatFileError)


def test_oversize_file_is_refused_before_reading(tmp_path):
    path = tmp_path / "big.mat"
    with open(path, "wb") as f:
        f.truncate(2_000_000)  # sparse: nothing is written
    with pytest.raises(MatFileError, match=r"big\.mat.*more than"):
        read_bytes(path, ".mat file", MatFileError, limit=1_000_000)


def test_json_too_deep_or_broken_is_the_readers_error():
    with pytest.raises(NetworkFileError, match="nests too deeply"):
        parse_json("[" * 200_000, "curve log", "'x.json'", NetworkFileError)
    with pytest.raises(NetworkFileError, match="not JSON"):
        parse_json("{", "curve log", "'x.json'", NetworkFileError)


# ----------------------------------------------------------------- the HTML report


@pytest.mark.parametrize("name", ["$$", r"$\foo$", "$x^$", "a$b"])
def test_report_draws_names_holding_dollar_signs(name, tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="matplotlib not installed: pip install '.[plot]'")
    match = random_match(3, 7, names=(name, "Bob"))
    fastgen.write_mat(match, tmp_path / "m.mat")
    assert main(["analyse", str(tmp_path / "m.mat"), "--html", str(tmp_path / "r.html")]) == 0
    text = (tmp_path / "r.html").read_text()
    assert f"<title>3-point match: {html.escape(name)} " in text and 'class="decision"' in text
    assert text.index("<svg") < text.index('class="decision"')  # the equity plot is drawn first


def test_report_destination_checked_before_the_analysis(tmp_path, capsys):
    fastgen.write_mat(random_match(3, 7), tmp_path / "m.mat")
    assert main(["analyse", str(tmp_path / "m.mat"), "--html", str(tmp_path / "no" / "r.html")]) == 2
    assert "does not exist" in _one_line_error(capsys, "analyse")
    with pytest.raises(InvalidArgumentError, match="is a folder"):
        check_destination(tmp_path, "HTML report", InvalidArgumentError)


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_report_write_that_fails_part_way_leaves_the_old_report_whole(tmp_path):
    """The write is cut by a file-size limit (EFBIG past 20,000 bytes), as a full disk
    cuts it: the report from before must stay byte for byte."""
    pytest.importorskip("matplotlib", reason="matplotlib not installed: pip install '.[plot]'")
    fastgen.write_mat(random_match(5, 3), tmp_path / "m.mat")
    old = "<!DOCTYPE html><p>the previous report</p>\n" * 10
    (tmp_path / "r.html").write_text(old)
    code = ("import resource, signal, sys\n"
            "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
            "resource.setrlimit(resource.RLIMIT_FSIZE, (20000, 20000))\n"
            "from fastgen.cli.main import main\n"
            f"sys.exit(main(['analyse', {str(tmp_path / 'm.mat')!r}, '--html', {str(tmp_path / 'r.html')!r}]))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 1 and "cannot write the report" in out.stderr and "Traceback" not in out.stderr
    assert (tmp_path / "r.html").read_text() == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.mat", "r.html"]  # no temporary file left


def test_matfile_bytes_and_text_still_read(tmp_path):
    match = random_match(3, 11)
    fastgen.write_mat(match, tmp_path / "m.mat")
    text = (tmp_path / "m.mat").read_text()
    assert fastgen.formats.read_mat(tmp_path / "m.mat").games[0].__class__ is fastgen.formats.read_mat(text).games[0].__class__
    assert json.dumps(len(fastgen.formats.read_mat(str(tmp_path / "m.mat")).games)) == str(len(match.games))
