"""``fastgen.nets.gnubg.load`` reads GNU Backgammon's nets once a process: the same
files, unchanged on disk, give the same object to every caller and every thread; a file
changed or replaced is read again. Needs only a weights file (no gnubg-nn)."""

from __future__ import annotations

import os
import pickle
import shutil
import threading

import pytest

from fastgen.errors import GnubgWeightsNotFoundError
from fastgen.nets import gnubg
from fastgen.nets.gnubg_weights import find_weights
from fastgen.players import evaluators


@pytest.fixture(scope="module")
def files():
    """(weights path, (one-sided path, two-sided path)) of the install found here."""
    try:
        weights = find_weights()
    except GnubgWeightsNotFoundError as exc:
        pytest.skip(str(exc))
    return weights, gnubg.find_bearoff(weights)


@pytest.fixture
def copy(files, tmp_path):
    """A copy of the weights file, loaded with the install's bear-off files."""
    path = tmp_path / os.path.basename(files[0])
    shutil.copyfile(files[0], path)
    return path


def test_two_loads_and_two_resolutions_share_one_object(files):
    first = gnubg.load()
    assert gnubg.load() is first and gnubg.load(files[0]) is first
    assert evaluators.gnubg(0) is evaluators.gnubg(0) is first


def test_a_touched_file_is_read_again(files, copy):
    first = gnubg.load(copy, bearoff=files[1])
    assert gnubg.load(str(copy), bearoff=files[1]) is first
    stat = os.stat(copy)
    os.utime(copy, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    second = gnubg.load(copy, bearoff=files[1])
    assert second is not first and second.digest() == first.digest()
    assert gnubg.load(copy, bearoff=files[1]) is second


def test_a_replaced_file_is_read_again_even_with_the_same_size_and_time(files, copy, tmp_path):
    first = gnubg.load(copy, bearoff=files[1])
    stat = os.stat(copy)
    other = tmp_path / "other"
    shutil.copyfile(files[0], other)
    os.utime(other, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # the same size and modification time
    os.replace(other, copy)
    second = gnubg.load(copy, bearoff=files[1])
    assert second is not first and second.digest() == first.digest()


def test_a_file_gone_is_an_error_not_a_cached_answer(files, copy):
    gnubg.load(copy, bearoff=files[1])
    os.remove(copy)
    with pytest.raises(GnubgWeightsNotFoundError):
        gnubg.load(copy, bearoff=files[1])


def test_threads_loading_at_once_get_one_object(files, copy):
    start = threading.Barrier(4)
    got: list = []

    def load():
        start.wait()
        got.append(gnubg.load(copy, bearoff=files[1]))

    threads = [threading.Thread(target=load) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 4 and all(n is got[0] for n in got)


def test_pickling_still_works(files, copy):
    nets = gnubg.load(copy, bearoff=files[1])
    again = pickle.loads(pickle.dumps(nets))
    assert again is nets  # in this process: the same files, the same object
    stat = os.stat(copy)
    os.utime(copy, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    fresh = pickle.loads(pickle.dumps(nets))  # a changed file: read again, from its path
    assert fresh is not nets and fresh.digest() == nets.digest() and fresh.about() == nets.about()
