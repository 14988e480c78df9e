"""Helpers of the tests that kill a parent process and check that its children end:
start the parent, read the PIDs it prints, poll (bounded) for the PIDs' end."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time

from _child import child_env


def alive(pid: int) -> bool:
    """Whether *pid* runs (a zombie, dead but not yet reaped, counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def wait_gone(pids, seconds: float = 10.0) -> list[int]:
    """Poll until every PID of *pids* is gone or *seconds* passed; the PIDs still alive."""
    deadline = time.monotonic() + seconds
    left = [p for p in pids if alive(p)]
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = [p for p in left if alive(p)]
    return left


def kill_leftovers(pids) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def start_parent(code: str, lines: int, timeout: float = 60.0):
    """A Python process running *code* (on the fastgen under test, see _child) and the first
    *lines* integers it prints (PIDs), read within *timeout* seconds."""
    parent = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE, text=True,
                              env=child_env(), cwd=tempfile.gettempdir())
    pids: list[int] = []
    deadline = time.monotonic() + timeout
    try:
        assert parent.stdout is not None
        while len(pids) < lines:
            line = parent.stdout.readline()
            assert line, f"the parent exited (status {parent.wait(5)}) before printing {lines} PIDs"
            pids.append(int(line))
            assert time.monotonic() < deadline
    except BaseException:
        parent.kill()
        parent.wait()
        kill_leftovers(pids)
        raise
    return parent, pids
