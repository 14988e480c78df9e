"""GNU Backgammon's neural-net weights, read from the user's own install.

fastgen never ships these weights: GNU Backgammon is GPL, and its nets are read from a
copy the user installed (Debian's ``gnubg``, Homebrew's, the Windows installer, or the
``gnubg-nn`` / ``gnubg`` Python packages). This module only reads them; it runs nothing.

The layouts are GNU Backgammon's, as its ``makeweights`` writes them and its
``lib/neuralnet.c`` reads them, and gnubg-nn's, as its manual (``doc/gnubg-nn.texi``) and
its shipped file show; the facts were checked on Debian's and the Python packages' files
(the tests read each of them where installed):

- **binary** (``gnubg.wd``): a float32 magic number 472.3782, a float32 version (1.00 in
  Debian's gnubg 1.07, 1.01 in the nets retrained in 2024), then per net the int32 counts of inputs,
  hidden units and outputs, an int32 "trained" flag, the float32 hidden and output betas,
  then its float32 arrays. Numbers are in the byte order of the machine that wrote the
  file (little-endian on every common one; a big-endian file is read too);
- **text** (``gnubg.weights``): a line ``GNU Backgammon <version>``, then per net a line
  ``inputs hidden outputs <trained> beta_hidden beta_output`` and one number a line;
- **gnubg-nn text** (``gnubg.weights`` of the ``gnubg-nn`` package): the text layout with
  a name line before each net (``race``, ``prune race``, ``crashed``, ``prune crashed``,
  ``contact contact250``, ``prune contact``), in that order.

Each net's arrays come in this order: the hidden weights (one row of ``hidden`` numbers
per input), the output weights (one row of ``hidden`` numbers per output), the hidden
thresholds, the output thresholds. The binary and text files hold the nets in the order
contact 250-128-5, race 214-128-5, crashed 250-128-5, pruning contact 200-16-5, pruning
crashed 200-16-5, pruning race 200-8-5; every count is checked against these shapes.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from dataclasses import dataclass

import numpy as np

from fastgen._util import install_hint
from fastgen.errors import GnubgWeightsNotFoundError, NetworkFileError
from fastgen.formats.checked import MiB, read_bytes

__all__ = ["GnubgNet", "GnubgWeights", "read_weights", "find_weights", "NET_SHAPES", "VERSIONS", "MAGIC",
           "ENVIRONMENT_VARIABLE"]

#: The six nets by name, in the order of gnubg's binary and text files, with their
#: (inputs, hidden, outputs).
NET_SHAPES: dict[str, tuple[int, int, int]] = {
    "contact": (250, 128, 5),
    "race": (214, 128, 5),
    "crashed": (250, 128, 5),
    "prune contact": (200, 16, 5),
    "prune crashed": (200, 16, 5),
    "prune race": (200, 8, 5),
}
#: The versions read: gnubg 1.07's weights (1.00) and those retrained in 2024 (1.01, after
#: a fix of the PIPLOSS input, as gnubg's ChangeLog says; only contact and crashed changed).
VERSIONS = ("1.00", "1.01")
#: The first float32 of a binary weights file.
MAGIC = 472.3782
#: The environment variable :func:`find_weights` reads first when no path is given.
ENVIRONMENT_VARIABLE = "FASTGEN_GNUBG_WEIGHTS"

#: The largest file read: the text file is about 1.1 MB, the binary one 408,016 bytes.
LIMIT = 8 * MiB
WHAT = "GNU Backgammon weights file"
_TEXT_HEADER = b"GNU Backgammon "
#: The name lines of gnubg-nn's layout, in its order, and the net each names.
_NN_NAMES = {"race": "race", "prune race": "prune race", "crashed": "crashed", "prune crashed": "prune crashed",
             "contact contact250": "contact", "contact": "contact", "prune contact": "prune contact"}
_ARRAYS = ("hidden weights", "output weights", "hidden thresholds", "output thresholds")


@dataclass(frozen=True, eq=False)
class GnubgNet:
    """One of GNU Backgammon's nets as its file holds it (read-only float32 arrays).

    The forward pass these numbers are for (gnubg's, with its sigmoid ``1/(1+e^x)``):
    ``a = sigmoid(-beta_hidden * (hidden_bias + x @ hidden_weights))``, then
    ``o = sigmoid(-beta_output * (output_bias + output_weights @ a))``."""

    name: str
    inputs: int
    hidden: int
    outputs: int
    beta_hidden: float
    beta_output: float
    hidden_weights: np.ndarray  #: (inputs, hidden), one row per input
    output_weights: np.ndarray  #: (outputs, hidden), one row per output
    hidden_bias: np.ndarray  #: (hidden,), gnubg's hidden thresholds
    output_bias: np.ndarray  #: (outputs,), gnubg's output thresholds

    @property
    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The four arrays in the files' order: hidden weights, output weights, hidden
        and output thresholds."""
        return self.hidden_weights, self.output_weights, self.hidden_bias, self.output_bias


@dataclass(frozen=True, eq=False)
class GnubgWeights:
    """A whole weights file: its version (``"1.00"``, ``"1.01"``), the path it was read
    from, the layout read (``"binary"``, ``"text"`` or ``"gnubg-nn text"``), the six nets
    by name in gnubg's order, and :attr:`digest`, the first 16 hex digits of a SHA-256 of
    the names, shapes, betas and arrays (the same for the same weights in any layout)."""

    version: str
    path: str
    layout: str
    nets: dict[str, GnubgNet]
    digest: str


def _fail(path: str, why: str) -> NetworkFileError:
    return NetworkFileError(f"cannot read the {WHAT} {path!r}: {why}")


def _check_counts(path: str, where: str, name: str, counts: tuple[int, ...]) -> int:
    """How many numbers the net *name* holds, once its declared *counts* are checked."""
    if counts != NET_SHAPES[name]:
        shape = "-".join(map(str, NET_SHAPES[name]))
        raise _fail(path, f"{where} declares {'-'.join(map(str, counts))} inputs-hidden-outputs; "
                          f"GNU Backgammon's {name} net is {shape}")
    n_in, n_hid, n_out = counts
    return n_in * n_hid + n_out * n_hid + n_hid + n_out


def _net(path: str, where: str, name: str, betas: tuple[float, float], flat: np.ndarray) -> GnubgNet:
    """The net *name* (counts already checked) from its betas and numbers (checked)."""
    for label, beta in zip(("hidden", "output"), betas):
        if not np.isfinite(beta):
            raise _fail(path, f"{where} has the {label} beta {beta!r}, not a finite number")
    n_in, n_hid, n_out = NET_SHAPES[name]
    flat = flat.astype(np.float32)
    bad = np.flatnonzero(~np.isfinite(flat))
    if bad.size:
        raise _fail(path, f"{where} holds {bad.size:,} non-finite number(s): the first, "
                          f"{flat[bad[0]]!r}, is number {bad[0]:,} of its {flat.size:,} (the file is damaged)")
    cuts = np.cumsum([n_in * n_hid, n_out * n_hid, n_hid])
    parts = np.split(flat, cuts)
    shapes = ((n_in, n_hid), (n_out, n_hid), (n_hid,), (n_out,))
    arrays = [part.reshape(shape) for part, shape in zip(parts, shapes)]
    for array in arrays:
        array.setflags(write=False)
    return GnubgNet(name, n_in, n_hid, n_out, float(np.float32(betas[0])), float(np.float32(betas[1])), *arrays)


def _digest(nets: dict[str, GnubgNet]) -> str:
    h = hashlib.sha256()
    for name in NET_SHAPES:
        net = nets[name]
        h.update(name.encode("ascii") + b"\0")
        h.update(np.array([net.inputs, net.hidden, net.outputs], dtype="<i4").tobytes())
        h.update(np.array([net.beta_hidden, net.beta_output], dtype="<f4").tobytes())
        for array in net.arrays:
            h.update(np.ascontiguousarray(array, dtype="<f4").tobytes())
    return h.hexdigest()[:16]


def _binary(path: str, data: bytes, order: str) -> tuple[str, dict[str, GnubgNet]]:
    f4, i4 = np.dtype(order + "f4"), np.dtype(order + "i4")
    if len(data) < 8:
        raise _fail(path, f"it holds {len(data)} bytes, too few for the 8-byte header (the file is truncated)")
    version = float(np.frombuffer(data, f4, 1, 4)[0])
    known = [v for v in VERSIONS if np.float32(v) == np.float32(version)]
    if not known:
        raise _fail(path, f"it is a binary weights file of version {version:.4g}; this fastgen reads the "
                          f"versions {', '.join(VERSIONS)}")
    nets: dict[str, GnubgNet] = {}
    at = 8
    for i, name in enumerate(NET_SHAPES, 1):
        where = f"its net {i} ({name})"
        if len(data) < at + 24:
            raise _fail(path, f"it ends at byte {len(data):,}, inside the header of {where}: the file is truncated")
        counts = tuple(int(n) for n in np.frombuffer(data, i4, 3, at))
        betas = tuple(float(b) for b in np.frombuffer(data, f4, 2, at + 16))
        at += 24
        count = _check_counts(path, where, name, counts)
        have = (len(data) - at) // 4
        if have < count:
            raise _fail(path, f"{where} declares {count:,} numbers and the file holds {have:,} more: "
                              "the file is truncated")
        nets[name] = _net(path, where, name, (betas[0], betas[1]), np.frombuffer(data, f4, count, at))
        at += 4 * count
    if at != len(data):
        raise _fail(path, f"it holds {len(data) - at:,} bytes after its last net, where the file should end")
    return known[0], nets


def _numbers(path: str, lines: list[str], at: int, count: int, where: str) -> np.ndarray:
    """The *count* numbers of lines *at* on, one a line."""
    chunk = lines[at:at + count]
    if len(chunk) < count:
        raise _fail(path, f"{where} declares {count:,} numbers and the file holds {len(chunk):,} more lines: the "
                          "file is truncated")
    try:
        return np.array([float(s) for s in chunk], dtype=np.float64)
    except ValueError:
        for k, s in enumerate(chunk):
            try:
                float(s)
            except ValueError:
                raise _fail(path, f"line {at + k + 1}, in {where}, is {s[:60]!r}, not a number") from None
        raise


def _net_header(path: str, lines: list[str], at: int, where: str) -> tuple[tuple[int, ...], tuple[float, float]]:
    """The counts and betas of the line *at*: ``inputs hidden outputs <trained> beta beta``."""
    if at >= len(lines):
        raise _fail(path, f"it ends before {where}: the file is truncated")
    words = lines[at].split()
    try:
        if len(words) != 6:
            raise ValueError
        return tuple(int(w) for w in words[:3]), (float(words[4]), float(words[5]))
    except ValueError:
        raise _fail(path, f"line {at + 1}, the header of {where}, is {lines[at][:60]!r}, not 'inputs hidden "
                          "outputs trained beta_hidden beta_output'") from None


def _text(path: str, data: bytes) -> tuple[str, str, dict[str, GnubgNet]]:
    try:
        lines = data.decode("ascii").splitlines()
    except UnicodeDecodeError as exc:
        raise _fail(path, f"it is not ASCII text (byte {exc.start:,})") from None
    version = lines[0][len(_TEXT_HEADER):].strip()
    if version not in VERSIONS:
        raise _fail(path, f"it is a text weights file of version {version[:20]!r}; this fastgen reads the "
                          f"versions {', '.join(VERSIONS)}")
    while lines and not lines[-1].strip():
        lines.pop()
    second = lines[1].split() if len(lines) > 1 else []
    nn = bool(second) and not second[0].lstrip("+-").isdigit()
    order = list(_NN_NAMES) if nn else list(NET_SHAPES)
    nets: dict[str, GnubgNet] = {}
    at = 1
    for i in range(len(NET_SHAPES)):
        if nn:
            if at >= len(lines):
                raise _fail(path, f"it ends before the name line of its net {i + 1}: the file is truncated")
            title = " ".join(lines[at].split())
            name = _NN_NAMES.get(title)
            if name is None or name in nets:
                seen = "twice" if name else "an unknown net name"
                raise _fail(path, f"line {at + 1} names {title[:60]!r}, {seen} (gnubg-nn's names are "
                                  f"{', '.join(repr(n) for n in order if n != 'contact')})")
            at += 1
        else:
            name = order[i]
        where = f"its net {i + 1} ({name})"
        counts, betas = _net_header(path, lines, at, where)
        at += 1
        count = _check_counts(path, where, name, counts)
        nets[name] = _net(path, where, name, betas, _numbers(path, lines, at, count, where))
        at += count
    if at != len(lines):
        raise _fail(path, f"line {at + 1} follows the last net: {lines[at][:60]!r}, where the file should end")
    return version, "gnubg-nn text" if nn else "text", {name: nets[name] for name in NET_SHAPES}


def read_weights(path: str | os.PathLike[str] | None = None) -> GnubgWeights:
    """GNU Backgammon's weights from the file *path* (by default the one
    :func:`find_weights` finds), any of the three layouts the module docstring gives,
    told apart by their content.

    Raises :class:`~fastgen.errors.NetworkFileError` naming the file and what was found
    when it is missing, not a regular file (a FIFO, a device, a folder), larger than 8
    MiB, of another kind, of a version other than 1.00 and 1.01, truncated, longer than
    its nets, with a count other than the net's shape, or holding a number that is not
    finite (a damaged file); :class:`~fastgen.errors.GnubgWeightsNotFoundError` when no
    path is given and none is found."""
    name = find_weights() if path is None else os.fspath(path)
    data = read_bytes(name, WHAT, NetworkFileError, LIMIT)
    head = data[:4]
    if len(head) == 4 and np.frombuffer(head, "<f4")[0] == np.float32(MAGIC):
        version, nets = _binary(name, data, "<")
        layout = "binary"
    elif len(head) == 4 and np.frombuffer(head, ">f4")[0] == np.float32(MAGIC):
        version, nets = _binary(name, data, ">")
        layout = "binary"
    elif data.startswith(_TEXT_HEADER):
        version, layout, nets = _text(name, data)
    else:
        raise _fail(name, f"it is not one: it starts with {data[:16]!r}, neither the binary magic number {MAGIC} "
                          f"nor a line 'GNU Backgammon <version>'")
    return GnubgWeights(version, name, layout, nets, _digest(nets))


# --------------------------------------------------------------------------- finding the file


def _package_places() -> list[tuple[str, list[str]]]:
    """(where, candidate paths) for the Python packages that ship the weights: gnubg-nn's
    ``gnubg_nn/data/gnubg.weights``, then the ``gnubg`` package's ``data`` folder; found
    with :func:`importlib.util.find_spec`, which does not import them (nor their compiled
    extensions)."""
    places = []
    for module, files in (("gnubg_nn", ("gnubg.weights",)), ("gnubg", ("gnubg.wd", "gnubg.weights"))):
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            spec = None
        folders = list(spec.submodule_search_locations or []) if spec is not None else []
        where = f"the {module} package" + ("" if folders else " (not installed)")
        places.append((where, [os.path.join(f, "data", file) for f in folders for file in files]))
    return places


def _system_places() -> list[str]:
    """The usual places of an installed GNU Backgammon's weights on this platform: the
    binary file first, as gnubg itself reads it first."""
    if sys.platform == "win32":
        roots = [os.environ.get(v) for v in ("ProgramFiles", "ProgramFiles(x86)", "LOCALAPPDATA")]
        folders = [os.path.join(r, sub) for r in roots if r for sub in ("gnubg", "GNU Backgammon")]
    else:
        folders = ["/usr/lib/gnubg", "/usr/share/gnubg", "/usr/local/lib/gnubg", "/usr/local/share/gnubg"]
        if sys.platform == "darwin":
            folders += ["/opt/homebrew/share/gnubg", "/opt/local/share/gnubg"]
        folders += ["/usr/lib64/gnubg", "/usr/share/games/gnubg", "/usr/games/share/gnubg"]
    return [os.path.join(f, name) for name in ("gnubg.wd", "gnubg.weights") for f in folders]


def find_weights(path: str | os.PathLike[str] | None = None) -> str:
    """The path of GNU Backgammon's weights file to read, looked for in this order:

    1. *path*, when given;
    2. the environment variable ``FASTGEN_GNUBG_WEIGHTS``, when set;
    3. the data of the installed ``gnubg_nn`` package, then of the ``gnubg`` package;
    4. the usual places of an installed GNU Backgammon: ``/usr/lib/gnubg/gnubg.wd``
       (Debian), ``/usr/share/gnubg``, ``/usr/local/share/gnubg`` (also Homebrew on an
       Intel Mac), ``/opt/homebrew/share/gnubg`` (Homebrew on Apple silicon), the
       ``gnubg`` folders of ``Program Files`` on Windows.

    A *path* or variable naming no file is an error, not a reason to look further.
    Raises :class:`~fastgen.errors.GnubgWeightsNotFoundError` listing every place looked
    at. Nothing is read: :func:`read_weights` checks the file."""
    looked: list[str] = []

    def given(value: str, where: str) -> str:
        if os.path.isfile(value):
            return value
        raise GnubgWeightsNotFoundError(f"no GNU Backgammon weights file at {value!r} ({where}): it does not exist "
                                        "or is not a regular file")

    if path is not None:
        return given(os.fspath(path), "the path given")
    variable = os.environ.get(ENVIRONMENT_VARIABLE)
    if variable:
        return given(variable, f"the environment variable {ENVIRONMENT_VARIABLE}")
    looked.append(f"the environment variable {ENVIRONMENT_VARIABLE} (not set)")
    for where, candidates in _package_places():
        for candidate in candidates:
            if os.path.isfile(candidate):
                return candidate
        looked.append(where + (f": {', '.join(candidates)}" if candidates else ""))
    for candidate in _system_places():
        if os.path.isfile(candidate):
            return candidate
        looked.append(candidate)
    raise GnubgWeightsNotFoundError(
        "found no GNU Backgammon weights file; looked at " + "; ".join(looked) + ". Install GNU Backgammon "
        f"(apt-get install gnubg, brew install gnubg) or gnubg-nn ({install_hint('peers')}), or set "
        f"{ENVIRONMENT_VARIABLE} to the file (gnubg.wd or gnubg.weights)")
