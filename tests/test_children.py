"""Children fastgen starts end when the Python process that started them dies, however
it dies (fastgen._util.popen_tied, both methods; Dask's local workers), and SIGTERM /
SIGHUP become a KeyboardInterrupt inside signals_as_interrupt. Each test starts a parent
Python process, reads its child's PID, kills the parent and polls for the child's end
(bounded); whatever is still alive at the end is killed by PID."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from fastgen._util import PDEATHSIG_AVAILABLE, Terminated, popen_tied, signals_as_interrupt
from fastgen.errors import InvalidArgumentError

from _children import alive, kill_leftovers, start_parent, wait_gone

METHODS = [pytest.param("pdeathsig", marks=pytest.mark.skipif(not PDEATHSIG_AVAILABLE, reason="PR_SET_PDEATHSIG is Linux only")),
           "pipe"]


SLEEPER = """
    import sys, time
    from fastgen._util import popen_tied
    child = popen_tied([sys.executable, "-c", "import os, time; print(os.getpid(), flush=True); time.sleep(120)"],
                       method={method!r})
    print(child.pid, flush=True)  # the program itself, or (pipe) its watcher
    time.sleep(120)
"""


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL])
def test_child_ends_with_its_parent(method, signum):
    parent, pids = start_parent(SLEEPER.format(method=method), 2)
    try:
        assert all(alive(p) for p in pids)
        assert (pids[0] == pids[1]) == (method == "pdeathsig")
        parent.send_signal(signum)
        assert parent.wait(10) == -signum
        assert wait_gone(pids, 5) == []
    finally:
        parent.kill()
        parent.wait()
        kill_leftovers(pids)


@pytest.mark.parametrize("method", METHODS)
def test_tied_child_runs_and_exits_as_the_program(method, tmp_path):
    proc = popen_tied([sys.executable, "-c", "import sys; print(sys.stdin.readline().upper(), end=''); sys.exit(7)"],
                      method=method, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    out, _ = proc.communicate(b"hello\n", timeout=30)
    assert (out, proc.returncode) == (b"HELLO\n", 7)


@pytest.mark.parametrize("method", METHODS)
def test_terminate_reaches_the_program(method):
    proc = popen_tied([sys.executable, "-c", "import time; print('up', flush=True); time.sleep(120)"],
                      method=method, stdout=subprocess.PIPE)
    try:
        assert proc.stdout.readline() == b"up\n"
        proc.terminate()
        assert proc.wait(10) == -signal.SIGTERM
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()


def test_bad_arguments():
    with pytest.raises(InvalidArgumentError, match="'fork'"):
        popen_tied(["true"], method="fork")
    with pytest.raises(InvalidArgumentError, match="preexec_fn"):
        popen_tied(["true"], preexec_fn=print)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_signals_as_interrupt(signum):
    before = signal.getsignal(signum)
    with pytest.raises(Terminated) as info:
        with signals_as_interrupt():
            os.kill(os.getpid(), signum)
            time.sleep(5)  # the handler interrupts this
    assert isinstance(info.value, KeyboardInterrupt) and info.value.signum == signum
    assert signal.getsignal(signum) is before


def test_ignored_signal_stays_ignored():
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with signals_as_interrupt():
            os.kill(os.getpid(), signal.SIGHUP)
            time.sleep(0.1)
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, previous)


def test_dask_local_workers_end_with_their_parent():
    """Dask's worker processes watch their parent: SIGKILL of the process that made the
    LocalCluster (fastgen.sim.cluster.connect) ends them too."""
    pytest.importorskip("distributed", reason="dask not installed: pip install '.[dask]'")
    parent, pids = start_parent("""
        import os, time
        from fastgen.sim.cluster import connect
        if __name__ == "__main__":
            with connect(workers=2) as client:
                for pid in sorted(client.run(os.getpid).values()):
                    print(pid, flush=True)
                time.sleep(120)
    """, 2, timeout=90)
    try:
        assert all(alive(p) for p in pids) and parent.pid not in pids
        parent.kill()
        parent.wait(10)
        assert wait_gone(pids, 15) == []
    finally:
        parent.kill()
        parent.wait()
        kill_leftovers(pids)


def test_a_child_started_by_a_thread_outlives_the_thread():
    """The kernel counts the forking thread as the parent (PR_SET_PDEATHSIG): children
    are forked by a thread that lasts, so the end of the thread that asked changes nothing."""
    got = []
    t = threading.Thread(target=lambda: got.append(popen_tied([sys.executable, "-c", "import time; time.sleep(60)"])))
    t.start()
    t.join(30)
    (proc,) = got
    try:
        time.sleep(0.5)
        assert proc.poll() is None, f"the child ended with its thread (status {proc.returncode})"
    finally:
        proc.kill()
        proc.wait()
