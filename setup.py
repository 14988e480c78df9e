"""Build the compiled modules: the move generator (fastgen.core._core) and the core's small
ones, the network encoders, the game loops of the simulations (fastgen.sim._play),
pubeval, perft's steps, the networks' forward pass and self-play, the bear-off builders,
the RL kernel, the .mat scanner.

Environment:
  FASTGEN_DEBUG=1   build with -O0 -g, C assertions on, Cython bounds/wraparound checks on.
  FASTGEN_CHECKS=1  keep -O3 but turn Cython bounds/wraparound checks on (used by CI first).
  FASTGEN_BUILD_JOBS=N  compile N extensions at a time (default: one per CPU core).
  FASTGEN_PORTABLE=1  compile only the portable fallbacks of fastgen/core/_platform.h (heap
                    memory instead of mmap, no madvise, plain-C bit tricks), as on a
                    platform without them; CI tests this build.

Compiler flags: GCC/Clang style, or MSVC's own on Windows builds of CPython made with it.

Reuse: a build from the same checkout with the same settings (the variables above, the
Cython and numpy versions) reuses the last build's C files and compiled modules (build/,
and the .c files beside the .pyx sources), compiling again only the modules whose
sources changed, in pip's isolated build environment or not: a second
`pip install ".[plot]"` does not compile the core again. Other settings rebuild
everything, and so does `rm -rf build`.
"""

import glob
import hashlib
import json
import os
import sys

import Cython
from Cython.Build import cythonize
import numpy
from setuptools import Extension, setup

DEBUG = os.environ.get("FASTGEN_DEBUG") == "1"
CHECKS = DEBUG or os.environ.get("FASTGEN_CHECKS") == "1"
PORTABLE = os.environ.get("FASTGEN_PORTABLE") == "1"
JOBS = int(os.environ.get("FASTGEN_BUILD_JOBS") or os.cpu_count() or 1)
MSVC = sys.platform == "win32" and "MSC v." in sys.version  # the compiler CPython was built with

if MSVC:
    compile_args = ["/Od", "/Zi", "/UNDEBUG"] if DEBUG else ["/O2"]
elif DEBUG:
    compile_args = ["-O0", "-g", "-UNDEBUG"]
else:
    compile_args = ["-O3"]
if not MSVC:
    # pubeval must round like GNU Backgammon's single-precision code: no fused multiply-add
    compile_args.append("-ffp-contract=off")
macros = [("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")]
if not DEBUG:
    macros.append(("NDEBUG", None))
if PORTABLE:
    macros.append(("FG_PORTABLE", "1"))

directives = {
    "language_level": 3,
    "boundscheck": CHECKS,
    "wraparound": CHECKS,
    "initializedcheck": CHECKS,
    "cdivision": True,
    "embedsignature": True,
}

# the files fastgen/core/_core.pyx includes (one job each; see its docstring)
CORE_PARTS = [f"fastgen/core/_{name}.pxi" for name in ("ctx", "doubles", "nondoubles", "count", "validate", "batch", "rules")]
# the generator's declarations, the shared bit helpers and the platform header: every
# extension that cimports the generator is rebuilt when they change
CORE_DECLS = ["fastgen/core/_core.pxd", "fastgen/core/_bits.pxd", "fastgen/core/_dice.pxd", "fastgen/core/_platform.h"]
# the files fastgen/sim/_play.pyx includes (one job each; see its docstring)
PLAY_PARTS = [f"fastgen/sim/_{name}.pxi" for name in ("games", "pool")] + ["fastgen/sim/_loop.pxd"]
# the compiled networks' kernel (fastgen.nets), plain C: run by the forward pass and the
# trainer's self-play; it reads the contact features of fastgen/core/_contact.h
MLP_KERNEL = ["fastgen/nets/_mlp.h", "fastgen/nets/_mlp_simd.h", "fastgen/nets/_mlp.pxd", "fastgen/core/_contact.h",
              "fastgen/core/_platform.h"]

extensions = [
    Extension(
        "fastgen.core._core",
        ["fastgen/core/_core.pyx"],
        # the included job files, the declarations and the platform header: rebuilt on
        # change, and shipped in the sdist
        depends=CORE_DECLS + CORE_PARTS,
        include_dirs=[numpy.get_include()],
        extra_compile_args=compile_args,
        define_macros=macros,
    ),
    # a native policy's base class (fastgen/core/_chooser.pxd: a C function and its state),
    # subclassed by the networks' forward pass and called by the simulations' game loops
    Extension(
        "fastgen.core._chooser",
        ["fastgen/core/_chooser.pyx"],
        depends=["fastgen/core/_chooser.pxd"],
        extra_compile_args=compile_args,
        define_macros=[m for m in macros if m[0] != "NPY_NO_DEPRECATED_API"],
    ),
    # the rollout hash's dice (fastgen.core.hashing.roll_dice) and the random policy's native
    # chooser (a fastgen/core/_chooser.pxd Chooser): the inline C of
    # fastgen/core/_dice.pxd over a batch; no numpy C API
    Extension(
        "fastgen.core._roll",
        ["fastgen/core/_roll.pyx"],
        depends=["fastgen/core/_dice.pxd", "fastgen/core/_chooser.pxd"],
        extra_compile_args=compile_args,
        define_macros=[m for m in macros if m[0] != "NPY_NO_DEPRECATED_API"],
    ),
    # pubeval compiled (fastgen.players.pubeval): its choice over the generator's plays,
    # which it cimports from fastgen/core/_core.pxd; the choice is declared in
    # fastgen/players/_pubeval.pxd for the game loops; no numpy C API
    Extension(
        "fastgen.players._pubeval",
        ["fastgen/players/_pubeval.pyx"],
        include_dirs=["fastgen/core"],
        depends=CORE_DECLS + ["fastgen/players/_pubeval.pxd", "fastgen/core/_chooser.pxd"],
        extra_compile_args=compile_args,
        define_macros=[m for m in macros if m[0] != "NPY_NO_DEPRECATED_API"],
    ),
    # the simulations' game loops (whole games of rollouts and duels over the one game
    # loop of fastgen/sim/_loop.pxd, the rollout pool's turn): plain C loops over the
    # generator's generate(), which it cimports from fastgen/core/_core.pxd, playing
    # pubeval (fastgen/players/_pubeval.pxd) or another extension's policy
    # (fastgen/core/_chooser.pxd) with no Python a turn; no numpy C API
    Extension(
        "fastgen.sim._play",
        ["fastgen/sim/_play.pyx"],
        include_dirs=["fastgen/core"],
        depends=CORE_DECLS + PLAY_PARTS + ["fastgen/core/_chooser.pxd", "fastgen/players/_pubeval.pxd"],
        extra_compile_args=compile_args,
        define_macros=[m for m in macros if m[0] != "NPY_NO_DEPRECATED_API"],
    ),
    # perft's merges of a level and its last level (fastgen.search.perft), over the generator's
    # counting batch, which it cimports from fastgen/core/_core.pxd; no numpy C API
    Extension(
        "fastgen.search._perft",
        ["fastgen/search/_perft.pyx"],
        include_dirs=["fastgen/core"],
        depends=CORE_DECLS,
        extra_compile_args=compile_args,
        define_macros=[m for m in macros if m[0] != "NPY_NO_DEPRECATED_API"],
    ),
    # network input encoders (fastgen.core.features): plain C loops, no numpy C API
    Extension(
        "fastgen.core._features",
        ["fastgen/core/_features.pyx"],
        include_dirs=["fastgen/core"],
        depends=["fastgen/core/_features.h", "fastgen/core/_contact.h", "fastgen/core/_platform.h",
                 "fastgen/core/_board_hash.h"],
        extra_compile_args=compile_args,
        define_macros=[m for m in macros if m[0] != "NPY_NO_DEPRECATED_API"],
    ),
    # bear-off database builders (fastgen.bearoff): nogil loops over the core's generate()
    Extension(
        "fastgen.bearoff._build",
        ["fastgen/bearoff/_build.pyx"],
        include_dirs=["fastgen/core"],
        # its job files (included) and the core's declarations: rebuilt on change
        depends=CORE_DECLS
        + [f"fastgen/bearoff/_{name}.pxi" for name in ("children", "one_sided", "two_sided", "evaluate", "verify", "first")],
        extra_compile_args=compile_args,
        define_macros=[m for m in macros if m[0] != "NPY_NO_DEPRECATED_API"],
    ),
    # the compiled networks' forward pass (fastgen.nets): plain C loops over the kernel in
    # fastgen/nets/_mlp.h, no numpy C API; its greedy play reaches the game loops of
    # fastgen.sim._play as a Chooser (fastgen/core/_chooser.pxd)
    Extension(
        "fastgen.nets._forward",
        ["fastgen/nets/_forward.pyx"],
        include_dirs=["fastgen/nets", "fastgen/core"],
        depends=MLP_KERNEL + CORE_DECLS + ["fastgen/core/_chooser.pxd", "fastgen/nets/_ply.pxi"],
        extra_compile_args=compile_args,
        define_macros=[m for m in macros if m[0] != "NPY_NO_DEPRECATED_API"],
    ),
    # GNU Backgammon's network inputs, classes and sigmoid (fastgen.nets._gnubg): plain C
    # loops over fastgen/nets/_gnubg_inputs.h, no numpy C API
    Extension(
        "fastgen.nets._gnubg",
        ["fastgen/nets/_gnubg.pyx"],
        include_dirs=["fastgen/nets"],
        depends=["fastgen/nets/_gnubg_inputs.h", "fastgen/nets/_gnubg_shots_avx512.h", "fastgen/nets/_gnubg_sanity.h"],
        extra_compile_args=compile_args,
        define_macros=[m for m in macros if m[0] != "NPY_NO_DEPRECATED_API"],
    ),
    # GNU Backgammon's nets (fastgen.nets._gnubg_eval): its classes, inputs, bear-offs and
    # forward pass in plain C (fastgen/nets/_gnubg_net.h), its greedy play as a native
    # chooser and its N-ply look ahead over the core's generate() (the row loop and the
    # plies' buffers shared with _forward in fastgen/nets/_ply.pxi); no numpy C API
    Extension(
        "fastgen.nets._gnubg_eval",
        ["fastgen/nets/_gnubg_eval.pyx"],
        include_dirs=["fastgen/nets", "fastgen/core"],
        depends=CORE_DECLS + ["fastgen/nets/_gnubg_inputs.h", "fastgen/nets/_gnubg_shots_avx512.h",
                              "fastgen/nets/_gnubg_net.h", "fastgen/nets/_gnubg_sanity.h",
                              "fastgen/nets/_gnubg_bearoff.h", "fastgen/core/_chooser.pxd",
                              "fastgen/nets/_ply.pxi", "fastgen/core/_board_hash.h"],
        extra_compile_args=compile_args,
        define_macros=[m for m in macros if m[0] != "NPY_NO_DEPRECATED_API"],
    ),
    # the trainer's self-play (fastgen.train): nogil games played by the one game loop
    # (fastgen/sim/_loop.pxd), the learner a seat choosing with the compiled networks'
    # kernel (fastgen/nets/_mlp.h), learning with the arithmetic of fastgen/train/_td.h
    Extension(
        "fastgen.train._selfplay",
        ["fastgen/train/_selfplay.pyx"],
        include_dirs=["fastgen/core", "fastgen/nets", "fastgen/train"],
        depends=CORE_DECLS + MLP_KERNEL + ["fastgen/train/_td.h", "fastgen/train/_td_loops.h", "fastgen/sim/_loop.pxd",
                                           "fastgen/core/_chooser.pxd", "fastgen/players/_pubeval.pxd"],
        extra_compile_args=compile_args,
        define_macros=[m for m in macros if m[0] != "NPY_NO_DEPRECATED_API"],
    ),
    # the .mat reader's fast path (fastgen.formats.matbatch): scans match files and
    # replays their games over the core's generate(), which it cimports; no numpy C API
    Extension(
        "fastgen.formats._matscan",
        ["fastgen/formats/_matscan.pyx"],
        include_dirs=["fastgen/core"],
        depends=CORE_DECLS + ["fastgen/formats/_matscan_text.pxi"],
        extra_compile_args=compile_args,
        define_macros=[m for m in macros if m[0] != "NPY_NO_DEPRECATED_API"],
    ),
    # the RL environments' game kernel (fastgen.envs): plain C loops, no numpy C API; its
    # rules are the core's (it cimports them from fastgen/core/_core.pxd) and its bit
    # helpers too (fastgen/core/_bits.pxd, over _platform.h)
    Extension(
        "fastgen.envs._kernel",
        ["fastgen/envs/_kernel.pyx"],
        include_dirs=["fastgen/core"],
        depends=CORE_DECLS,
        extra_compile_args=compile_args,
        define_macros=[m for m in macros if m[0] != "NPY_NO_DEPRECATED_API"],
    ),
]

# Reuse of the last build (kept in build/): cythonize and build_ext decide what is stale
# by file times, but neither compares the settings (the directives, the flags, the numpy
# headers), and in pip's isolated build environment, installed afresh for each build,
# Cython's and numpy's own .pxd files are always newer than the C files. So the last
# build's settings and a hash of the compiled sources are recorded: the same again skips
# cythonize (its C files are current) and build_ext skips every module older than its
# sources; other settings regenerate and recompile everything; other sources go by times.
SETTINGS = {
    "directives": directives,
    "compile_args": compile_args,
    "macros": macros,
    "cython": Cython.__version__,
    "numpy": numpy.__version__,  # the headers the modules are compiled against
}
RECORD = os.path.join("build", "fastgen-build.json")


def _sources_hash() -> str:
    digest = hashlib.sha256()
    for path in ["setup.py"] + sorted(glob.glob("fastgen/**/*.*", recursive=True)):
        if path == "setup.py" or path.endswith((".pyx", ".pxd", ".pxi", ".h")):
            with open(path, "rb") as f:
                digest.update(path.encode() + b"\0" + f.read() + b"\0")
    return digest.hexdigest()


def _last_build() -> dict:
    try:
        with open(RECORD, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


this_build = json.loads(json.dumps({"settings": SETTINGS, "sources": _sources_hash()}))  # as read back
last_build = _last_build()
c_files = [os.path.splitext(ext.sources[0])[0] + ".c" for ext in extensions]
if last_build == this_build and all(os.path.isfile(c) for c in c_files):
    for ext, c_file in zip(extensions, c_files):
        ext.sources = [c_file]  # as cythonize leaves them
    modules = extensions
else:
    force = last_build.get("settings") != this_build["settings"]
    modules = cythonize(extensions, compiler_directives=directives, force=force)
    os.makedirs("build", exist_ok=True)
    with open(RECORD, "w", encoding="utf-8") as f:  # once the C files match it
        json.dump(this_build, f)

# parallel: build_ext compiles JOBS extensions at a time, in threads (the C compiler is the
# slow part: about 140 s of one core for the twelve at -O3, 20 s for Cython's translation).
setup(
    ext_modules=modules,
    options={"build_ext": {"parallel": JOBS}},
)
