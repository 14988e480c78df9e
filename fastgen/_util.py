"""Small shared helpers: argument checks, writing files whole, running work in threads,
child processes tied to this one, the command that installs an optional extra, and the
names a package imports on first use (:func:`lazy_attributes`).

Install hints: fastgen is distributed as ``fastgen-backgammon`` (``fastgen`` on PyPI is
an unrelated project); the import name and the command stay ``fastgen``.
:func:`install_hint` names the distribution this copy of fastgen was installed as, which
pip finds installed and completes with the extra's packages, without building fastgen
again; a source tree built in place and never installed gets the command to run from
the checkout's root.

Child processes: :func:`popen_tied` starts a program (``subprocess.Popen``'s arguments) so that it ends
when this process ends, however this process ends (an exception, SIGTERM, SIGHUP, even
SIGKILL, which no handler sees):

* on Linux the child first asks the kernel for SIGKILL when its parent dies
  (``prctl(PR_SET_PDEATHSIG, SIGKILL)``), then executes the program: the setting
  survives the exec (it is cleared only for set-user-ID programs), and the process is the
  program itself (``proc.pid`` is its PID). This is done by a small Python starter,
  not by ``preexec_fn``, which is unsafe in a process with threads. The kernel counts
  the *thread* that forked the child as its parent, so every such child is forked by one
  thread of fastgen's that lasts as long as the process (not by the calling thread,
  whose end would end the child);
* elsewhere (or with ``method="pipe"``) a small Python watcher runs the program and
  holds the read end of a pipe whose write end only this process holds; when this
  process dies the pipe closes and the watcher kills the program. Signals sent to the
  watcher (``proc.terminate()``) are passed on to the program. The write end is closed,
  and the program killed, when the ``Popen`` object is garbage collected. (A copy of
  this process made by ``os.fork`` holds the write end too, and keeps the program alive
  while it lives; programs it executes do not inherit it.)

:func:`signals_as_interrupt` turns SIGTERM and SIGHUP into :class:`Terminated` (a
``KeyboardInterrupt``) for the length of a ``with`` block, so that a long call is
stopped as Ctrl-C stops it: engines closed, workers cancelled, a prompt exit.
"""

from __future__ import annotations

import contextlib
import importlib
from functools import lru_cache
from importlib import metadata
import math
import os
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import weakref
from types import ModuleType
from typing import IO, Any, Callable, Iterator, Mapping, Sequence

import numpy as np

from fastgen.errors import InvalidArgumentError


def check_positive_float(value, name: str, upper: float | None = None) -> float:
    """*value* as a finite float above 0 and, if given, at most *upper*;
    InvalidArgumentError quoting it otherwise (bools and strings refused)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise InvalidArgumentError(f"{name} must be a number, got {value!r}")
    try:
        v = float(value)
    except OverflowError:  # an int too large for a float: out of any range asked for
        v = math.inf
    if not (v > 0 and math.isfinite(v)) or (upper is not None and v > upper):
        bound = f" and at most {upper}" if upper is not None else ""
        raise InvalidArgumentError(f"{name} must be above 0{bound}, got {value!r}")
    return v


def check_int(value, name: str, minimum: int, maximum: int | None = None) -> int:
    """*value* as an int >= *minimum* (0 or 1) and, if given, <= *maximum*;
    InvalidArgumentError (a ValueError) quoting it otherwise (bools, floats and strings
    refused; numpy integers accepted)."""
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, (int, np.integer))
        or value < minimum
        or (maximum is not None and value > maximum)
    ):
        kind = "a positive integer" if minimum == 1 else "a non-negative integer"
        if maximum is not None:
            kind += f" at most {maximum}"
        raise InvalidArgumentError(f"{name} must be {kind}, got {value!r}")
    return int(value)


#: The most threads any call takes (each thread owns its generator's working memory).
MAX_THREADS = 1024


def check_threads(threads) -> int:
    """*threads* as an int from 1 to :data:`MAX_THREADS`: the one check of every
    ``threads=`` argument; InvalidArgumentError quoting it otherwise."""
    return check_int(threads, "threads", 1, MAX_THREADS)


def as_list(items: Any, error: type[ValueError], expected: str) -> list[Any]:
    """*items* (any iterable but a string, bytes or None) as a list; otherwise raises
    *error* (a fastgen exception): "*expected*, got <items>". The common first check of
    list-shaped arguments (a game record, a play's steps)."""
    if isinstance(items, (str, bytes)) or items is None:
        raise error(f"{expected}, got {items!r}")
    try:
        return list(items)
    except TypeError:
        raise error(f"{expected}, got {items!r}") from None


def lazy_attributes(package: str, table: Mapping[str, str], *,
                    load: Callable[[str, str], ModuleType] | None = None
                    ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level ``__getattr__`` and ``__dir__`` (PEP 562) of the package named
    *package*, for the public names it imports on first use: *table* maps each name to
    the module that defines it, and a name whose module is the package's own submodule
    of that name (``"fibs": "fastgen.formats.fibs"``) is that submodule. *load(name,
    module)* imports the module (:func:`importlib.import_module` when None), for a
    package that explains a missing extra. A name once loaded is kept in the package, so
    later uses are plain attributes; ``dir()`` lists the names before they load; any
    other name raises :class:`AttributeError`, as for any module."""

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        loaded = importlib.import_module(module) if load is None else load(name, module)
        value = loaded if module == f"{package}.{name}" else getattr(loaded, name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(table))

    return __getattr__, __dir__


def _umask() -> int:
    """The process's file-creation mask (read from /proc where it can be, else set and
    restored at once)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str], mode: str = "wb", **open_args: Any) -> Iterator[IO[Any]]:
    """Write the file *path* whole or not at all: the ``with`` body writes a temporary
    file beside it (same directory, so same file system), which on success is flushed to
    disk and renamed over *path* (os.replace). A reader that has the old file open or
    memory-mapped keeps the old file; an exception (or a crash) leaves *path* as it was
    and removes the temporary file (a crash may leave it behind, named
    ``.NAME.XXXXXXXX.tmp``). *mode* is ``"w"`` or ``"wb"``; *open_args* (encoding,
    newline) go to the file as to open().

    The new file gets the old one's permission bits, or for a new file those open()
    would give (0o666 less the umask). A symbolic link is kept: the file it points to
    is replaced. A *path* that exists but is not a regular file (a FIFO, /dev/stdout) is
    written in place: there is nothing to rename over.
    """
    if mode not in ("w", "wb", "wt"):
        raise InvalidArgumentError(f"atomic_write writes a new file: mode must be 'w' or 'wb', got {mode!r}")
    target = os.path.realpath(os.fspath(path))
    try:
        info: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        info = None
    if info is not None and not stat.S_ISREG(info.st_mode):
        with open(target, mode, **open_args) as f:
            yield f
        return
    bits = stat.S_IMODE(info.st_mode) if info is not None else 0o666 & ~_umask()
    directory, base = os.path.split(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, mode, **open_args) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, bits)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


#: Seconds the waiting thread sleeps between looks at pending signals (Ctrl-C).
POLL_SECONDS = 0.05


class Stopped(BaseException):
    """Raised inside one of :func:`side_by_side`'s works, between two chunks of compiled
    work, once the call's stop flag is set (Ctrl-C, or another work failing): that work
    ends there, quietly. A BaseException, so that no ``except Exception`` of the work
    swallows it."""


_GROUP = threading.local()  # .stop: the stop flag of the side_by_side work this thread runs


def check_stopped() -> None:
    """Raise :class:`Stopped` when the calling thread runs a :func:`side_by_side` work
    whose stop flag is set; else nothing (the check costs a thread-local lookup)."""
    stop = getattr(_GROUP, "stop", None)
    if stop is not None and stop.is_set():
        raise Stopped


def side_by_side(work, count: int, stop) -> None:
    """Run ``work(k)`` for k in range(count) in parallel, ``work(0)`` in the calling thread
    (:func:`run_threads` with *caller_works*), each a share of one call (groups of trials
    played side by side). Ctrl-C in the calling thread, or an exception in any work, sets
    *stop* (a ``StopFlag``); every other work then ends at its next chunk of compiled
    work (:func:`run_in_chunks` and one-thread ``plays_batch`` call
    :func:`check_stopped` between chunks), not at the end of its share, and the
    exception is re-raised once all have ended."""

    def guarded(k: int) -> None:
        _GROUP.stop = stop
        try:
            work(k)
        except Stopped:
            return
        except BaseException:
            stop.set()  # the others stop too: the call fails as a whole
            raise
        finally:
            _GROUP.stop = None

    run_threads(guarded, count, stop=stop, caller_works=True)


def run_in_chunks(call, n: int, chunk: int, threads: int, stop) -> None:
    """``call(lo, hi)`` over ``range(n)`` in chunks of at most *chunk* items (a few ms of
    compiled work each). With one thread the chunks run in the calling thread, so Python
    runs its signal handlers between them; with more, :func:`run_threads` runs *threads*
    workers with *stop* (a ``StopFlag``), the first in the calling thread, each taking the
    next chunk as it comes free (about four chunks a thread, so an uneven chunk leaves
    no thread idle for long) and checking *stop* between chunks, so Ctrl-C stops them
    promptly; in a :func:`side_by_side` work, one thread checks its call's flag between
    chunks (:func:`check_stopped`). Items are independent: the order the chunks run in
    changes nothing."""
    if threads == 1:
        for lo in range(0, n, chunk):
            check_stopped()
            call(lo, min(lo + chunk, n))
        return
    size = max(1, min(chunk, -(-n // (4 * threads))))
    starts = iter(range(0, n, size))
    lock = threading.Lock()

    def work(_: int) -> None:
        while not stop.is_set():  # Ctrl-C in the calling thread
            with lock:
                lo = next(starts, None)
            if lo is None:
                return
            call(lo, min(lo + size, n))

    run_threads(work, threads, stop=stop, caller_works=True)


def run_threads(work, count: int, stop=None, caller_works: bool = False) -> None:
    """Run ``work(k)`` for k in range(count) in parallel (the work releases the GIL in the
    core). Re-raises the first exception in the caller's thread once all have finished.

    Without *stop* (short work): k = 0 runs in the calling thread, the others in new
    threads. With *stop* (a ``fastgen.core._core.StopFlag`` the work passes to the core):
    every ``work(k)`` runs in a new thread while the calling thread waits, waking every
    POLL_SECONDS so Python runs its signal handlers; on KeyboardInterrupt (or any
    exception there) it sets *stop*, waits for the workers (the core polls the flag
    between positions or turns) and re-raises, so a long call stops promptly. Either way
    no thread is left running when this returns or raises.

    With *stop* and *caller_works*, ``work(0)`` runs in the calling thread too (work that
    returns to Python between short compiled steps, so signals are handled there: one
    thread fewer to start); an exception in it, KeyboardInterrupt included, sets *stop*
    and waits for the others before it is re-raised.

    Signals can interrupt the calling thread anywhere, even inside Thread.start(), so
    each worker reports itself: `entered` when it runs, `finished` when it is done.
    Waiting uses these Events, and Thread.join only comes once a thread is finished: a
    join interrupted by KeyboardInterrupt can mark a still-running thread as stopped
    (CPython 3.11).
    """
    if stop is None and count == 1:
        work(0)  # the common small call: no thread, nothing to set up
        return
    errors = []

    def guarded(k):
        try:
            work(k)
        except BaseException as exc:  # re-raised below
            errors.append(exc)

    first = 0 if stop is not None and not caller_works else 1  # else work(0) runs here
    entered = {k: threading.Event() for k in range(first, count)}
    finished = {k: threading.Event() for k in range(first, count)}
    lock = threading.Lock()
    left = [count - first]
    all_done = threading.Event()
    if left[0] == 0:
        all_done.set()

    def worker(k):
        entered[k].set()
        try:
            guarded(k)
        finally:
            finished[k].set()
            with lock:
                left[0] -= 1
                if left[0] == 0:
                    all_done.set()

    pool = {k: threading.Thread(target=worker, args=(k,), name=f"fastgen-worker-{k}") for k in entered}
    asked = []  # threads whose start() was called (the last may have been cut short)
    try:
        for k, t in pool.items():
            asked.append(k)
            t.start()
        if first:
            if stop is None:
                guarded(0)
            else:
                work(0)  # an exception here sets stop below
        while not all_done.wait(POLL_SECONDS):
            pass
    except BaseException:
        if stop is not None:
            stop.set()
        for k in asked:
            # A thread whose start() was cut short before it existed never enters; one
            # that exists enters at once, then ends within a position (or its short work).
            if entered[k].wait(2.0):
                finished[k].wait()
                pool[k].join()
        raise
    for t in pool.values():
        t.join()
    if errors:
        raise errors[0]


def run_game_ranges(games: int, threads: int, chunk: int, play_range, progress=None, stop=None) -> list:
    """Play games 0..games-1 in ranges of at most *chunk* games spread over *threads*
    threads (via :func:`run_threads`): ``play_range(lo, hi)`` plays one range in the core
    and returns -1, or the index of a game that reached the turn limit (then no further
    range starts). *progress* gets each range's size as it finishes. Returns the indices
    of the games that reached the turn limit (empty when none did).

    Ranges are small enough (about 8 per thread) that the threads stay busy to the end;
    results never depend on which thread plays which range."""
    long_games: list = []
    chunk = max(1, min(chunk, -(-games // (8 * threads))))
    chunks = [(lo, min(lo + chunk, games)) for lo in range(0, games, chunk)]
    lock = threading.Lock()

    def work(_):
        while True:
            with lock:  # threads take ranges in turn, so the load stays balanced
                if not chunks or long_games or (stop is not None and stop.is_set()):
                    return
                lo, hi = chunks.pop(0)
            g = play_range(lo, hi)
            if g >= 0:
                long_games.append(g)
                return
            if progress is not None:
                with lock:
                    progress(hi - lo)

    run_threads(work, max(1, min(threads, len(chunks))), stop)
    return long_games


# --------------------------------------------------------------------------- child processes

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
        command = [sys.executable, "-I", "-S", "-c", _PDEATHSIG_STARTER, str(os.getpid()), *argv]
        return _from_spawner(lambda: subprocess.Popen(command, **kwargs))
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


_spawner_lock = threading.Lock()
_spawner: tuple[int, Any] | None = None  # (the PID it serves, its queue of requests)


def _spawner_loop(requests: Any) -> None:
    while True:
        start, future = requests.get()
        if future.set_running_or_notify_cancel():
            try:
                future.set_result(start())
            except BaseException as exc:  # handed to the caller
                future.set_exception(exc)


def _from_spawner(start: Any) -> subprocess.Popen:
    """``start()`` (a Popen) run on the one thread of this process that starts children:
    it lasts as long as the process, so the kernel, which counts the thread that forked a
    child as its parent for PR_SET_PDEATHSIG, does not end the child when the thread
    that asked for it ends."""
    global _spawner
    import concurrent.futures  # lazy: only when a child is started
    import queue  # lazy: only when a child is started

    with _spawner_lock:
        if _spawner is None or _spawner[0] != os.getpid():  # none yet, or a forked copy
            requests: Any = queue.SimpleQueue()
            threading.Thread(target=_spawner_loop, args=(requests,), name="fastgen-spawner", daemon=True).start()
            _spawner = (os.getpid(), requests)
        requests = _spawner[1]
    future: Any = concurrent.futures.Future()
    requests.put((start, future))
    try:
        return future.result()
    except BaseException:
        if not future.done():  # interrupted while waiting: end the child once it exists
            future.add_done_callback(_kill_started)
        raise


def _kill_started(future: Any) -> None:
    """End the child a finished request started (its caller stopped waiting)."""
    if future.exception() is None:
        proc = future.result()
        proc.kill()
        proc.wait()


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


# --------------------------------------------------------------------------- install hints

#: The distribution's name (pyproject.toml's ``[project] name``).
DISTRIBUTION = "fastgen-backgammon"
#: The optional extras a message may ask for (pyproject.toml's optional dependencies).
EXTRAS = ("peers", "pgx", "plot", "rl", "dask", "onnx", "docs", "test", "bench")
#: The console script of fastgen's own distribution: another project's ``fastgen``
#: package (as on PyPI) does not have it.
_ENTRY_POINT = "fastgen.cli.main:main"


def _is_ours(dist: metadata.Distribution) -> bool:
    return any(ep.group == "console_scripts" and ep.value.replace(" ", "") == _ENTRY_POINT for ep in dist.entry_points)


@lru_cache(maxsize=None)
def installed_distribution() -> str | None:
    """The name of the installed distribution that holds fastgen (normally
    ``fastgen-backgammon``), or None when fastgen runs from a source tree built in place."""
    def candidates():  # the usual names first; the scan of every distribution only if need be
        yield DISTRIBUTION
        yield "fastgen"  # fastgen's builds before the rename
        finder = getattr(metadata, "packages_distributions", None)  # Python 3.10+
        if finder is not None:
            yield from finder().get("fastgen", [])

    for name in candidates():
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        if _is_ours(dist):
            return str(dist.metadata["Name"])
    return None


def install_hint(extra: str) -> str:
    """The pip command that adds the optional *extra* (``"plot"``, ``"peers"`` ...) to
    this installation of fastgen."""
    if extra not in EXTRAS:
        raise ValueError(f"no optional extra {extra!r}; the extras are {', '.join(EXTRAS)}")
    name = installed_distribution()
    if name is None:
        return f'pip install ".[{extra}]" (from the root of the fastgen checkout)'
    return f'pip install "{name}[{extra}]"'
