"""Child processes that do not outlive fastgen, and SIGTERM / SIGHUP handled like Ctrl-C.

:func:`popen_tied` starts a program (``subprocess.Popen``'s arguments) so that it ends
when this process ends, however this process ends (an exception, SIGTERM, SIGHUP, even
SIGKILL, which no handler sees):

* on Linux the child first asks the kernel for SIGKILL when its parent dies
  (``prctl(PR_SET_PDEATHSIG, SIGKILL)``), then executes the program: the setting
  survives the exec (it is cleared only for set-user-ID programs), and the process is the
  program itself (``proc.pid`` is its PID). This is done by a small Python starter,
  not by ``preexec_fn``, which is unsafe in a process with threads. The kernel counts
  the *thread* that started the child as its parent: start such children from a thread
  that lives as long as they do (the main thread, or the thread that owns the engine);
* elsewhere (or with ``method="pipe"``) a small Python watcher runs the program and
  holds the read end of a pipe whose write end only this process holds; when this
  process dies the pipe closes and the watcher kills the program. Signals sent to the
  watcher (``proc.terminate()``) are passed on to the program. The write end is closed,
  and the program killed, when the ``Popen`` object is garbage collected.

:func:`signals_as_interrupt` turns SIGTERM and SIGHUP into :class:`Terminated` (a
``KeyboardInterrupt``) for the length of a ``with`` block, so that a long call is
stopped as Ctrl-C stops it: engines closed, workers cancelled, the exit prompt.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import weakref
from typing import Any, Iterator, Sequence

from fastgen.errors import InvalidArgumentError

__all__ = ["popen_tied", "Terminated", "signals_as_interrupt", "PDEATHSIG_AVAILABLE"]

#: Whether the kernel can end a child when its parent dies (Linux's PR_SET_PDEATHSIG).
PDEATHSIG_AVAILABLE = sys.platform.startswith("linux")

# The starter: set PR_SET_PDEATHSIG (1) to SIGKILL, make sure the parent did not die
# before that (then the parent is no longer the one given), and become the program.
_PDEATHSIG_STARTER = """\
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(1, 9, 0, 0, 0) != 0:
    sys.exit("fastgen: prctl(PR_SET_PDEATHSIG) failed: " + os.strerror(ctypes.get_errno()))
if os.getppid() != int(sys.argv[1]):
    os._exit(1)
os.execvp(sys.argv[2], sys.argv[2:])
"""

# The watcher: run the program, pass signals on, kill it when the pipe closes (read gives
# b"" once every write end is closed: the parent's is the only one), exit as it exits.
_PIPE_WATCHER = """\
import os, signal, subprocess, sys, threading
lifeline = int(sys.argv[1])
child = subprocess.Popen(sys.argv[2:])
def forward(signum, frame):
    child.send_signal(signum)
for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
    signal.signal(s, forward)
def watch():
    try:
        while os.read(lifeline, 64):
            pass
    except OSError:
        pass
    child.kill()
threading.Thread(target=watch, daemon=True).start()
code = child.wait()
if code < 0:
    signal.signal(-code, signal.SIG_DFL)
    os.kill(os.getpid(), -code)
sys.exit(code)
"""


def popen_tied(args: Sequence[str], *, method: str | None = None, **kwargs: Any) -> subprocess.Popen:
    """``subprocess.Popen(args, **kwargs)`` for a child that ends when this process ends.

    *method* is ``"pdeathsig"`` (Linux; the default there) or ``"pipe"`` (the portable
    watcher; the default elsewhere). *args* is a list (no shell); ``preexec_fn`` and
    ``pass_fds`` are not accepted. See the module's text for how each method works.
    """
    if method is None:
        method = "pdeathsig" if PDEATHSIG_AVAILABLE else "pipe"
    if method not in ("pdeathsig", "pipe"):
        raise InvalidArgumentError(f"method must be 'pdeathsig' or 'pipe', got {method!r}")
    if method == "pdeathsig" and not PDEATHSIG_AVAILABLE:
        raise InvalidArgumentError(f"method 'pdeathsig' needs Linux, this is {sys.platform!r}")
    for name in ("preexec_fn", "pass_fds", "shell"):
        if kwargs.get(name):
            raise InvalidArgumentError(f"popen_tied does not accept {name}={kwargs[name]!r}")
    argv = [os.fspath(a) for a in args]
    if method == "pdeathsig":
        return subprocess.Popen([sys.executable, "-I", "-S", "-c", _PDEATHSIG_STARTER, str(os.getpid()), *argv],
                                **kwargs)
    read_end, write_end = os.pipe()
    try:
        proc = subprocess.Popen([sys.executable, "-I", "-S", "-c", _PIPE_WATCHER, str(read_end), *argv],
                                pass_fds=(read_end,), **kwargs)
    except BaseException:
        os.close(write_end)
        raise
    finally:
        os.close(read_end)
    os.set_inheritable(write_end, False)
    weakref.finalize(proc, os.close, write_end)
    return proc


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived inside :func:`signals_as_interrupt`; ``signum`` says which.
    A ``KeyboardInterrupt``, so that the code that stops cleanly on Ctrl-C stops on it."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"terminated by {signal.Signals(signum).name}")
        self.signum = signum


def _raise_terminated(signum: int, frame: Any) -> None:
    raise Terminated(signum)


@contextlib.contextmanager
def signals_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise :class:`Terminated` in the main thread.
    A signal that was ignored (``nohup``) or had a handler of the program's own is left
    as it was; off the main thread nothing is changed. Handlers are restored at the end."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {}
    for name in ("SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is not None and signal.getsignal(signum) is signal.SIG_DFL:
            previous[signum] = signal.signal(signum, _raise_terminated)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
