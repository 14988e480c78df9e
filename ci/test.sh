#!/usr/bin/env bash
# CI: a fresh virtualenv; the package built in debug mode with the portable fallbacks only
# (core tests), then with Cython bounds checks on (all tests, every extra installed); then each of the
# README's two set-up commands as a new user runs it: in a fresh virtualenv of its own,
# in a clean copy of the repository, from its root.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
PY=${PYTHON:-python3}
say() { printf '== [%dm%02ds] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }  # time since CI started
PATH_BEFORE=$PATH  # the README commands run without this script's virtualenv on PATH

# The README's set-up commands: the lines of README.md's first code block (```bash), read now so
# that a README whose block changed shape fails before any build. Each line must be
# `pip install TARGET && COMMAND`, no other shell operator; there must be two.
mapfile -t SETUP < <(awk '/^```/ { if (inblock || $0 != "```bash") exit; inblock = 1; next } inblock' README.md)
if [ "${#SETUP[@]}" != 2 ]; then
    echo "ci/test.sh: README.md's first code block must be a \`\`\`bash block of the two set-up commands;" \
        "read ${#SETUP[@]} lines from it" >&2
    [ "${#SETUP[@]}" = 0 ] || printf '  %s\n' "${SETUP[@]}" >&2
    exit 1
fi
shape='^pip install [^;&|<>`$()]+ && [^;&|<>`$()]+$'
for cmd in "${SETUP[@]}"; do
    if ! [[ $cmd =~ $shape ]]; then
        echo "ci/test.sh: README.md's set-up command is not \`pip install TARGET && COMMAND\`: $cmd" >&2
        exit 1
    fi
done

VENV_DIR=$(mktemp -d /tmp/fastgen-ci-XXXXXX)
VENV=$VENV_DIR/venv
trap 'rm -rf "$VENV_DIR"' EXIT  # the temporary virtualenvs go when CI ends, pass or fail
# Real programs the tests compare against or run in (GNU Backgammon, a headless browser, a
# terminal multiplexer for fastgen play): Debian packages.
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    missing=""
    [ -x /usr/games/gnubg ] || missing="$missing gnubg"
    command -v chromium >/dev/null || missing="$missing chromium"
    command -v tmux >/dev/null || missing="$missing tmux"
    if [ -n "$missing" ]; then
        say "apt-get install$missing"
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
    fi
fi
say "fresh virtualenv at $VENV ($($PY --version))"
$PY -m venv "$VENV"
# shellcheck disable=SC1091
. "$VENV/bin/activate"
python -m pip install -q --upgrade pip
cd "$ROOT"
# The build requirements (pyproject.toml's [build-system]) once, in this virtualenv: the three
# builds below use them in place of pip's isolated build environment, which costs about 40 s
# a build. The README commands below build as a new user's pip does, isolated.
mapfile -t BUILD_REQUIRES < <(python -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"], sep="\n")')
python -m pip install -q "${BUILD_REQUIRES[@]}"
rm -rf build fastgen/_*.c fastgen/_*.so fastgen/*/_*.c fastgen/*/_*.so  # in-place builds

# tests/test_platform.py also compiles fastgen/core/_platform.h with clang and tcc (a
# compiler without GCC builtins), imitating the MSVC and no-mmap paths: Debian packages.
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    ccs=""
    for cc in clang tcc; do command -v $cc >/dev/null || ccs="$ccs $cc"; done
    if [ -n "$ccs" ]; then
        say "apt-get install$ccs"
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $ccs >/dev/null) \
            || echo "could not install$ccs: their tests/test_platform.py cases will skip"
    fi
fi

# One build for both: C assertions and Cython's checks on, and only the portable fallbacks
# of fastgen/core/_platform.h (heap memory, plain-C bit tricks), as on a platform without
# mmap or GCC builtins. The optimised build with the platform calls is tested below (2/3,
# and the README's test command).
say "1/3: debug and portable build (FASTGEN_DEBUG=1 FASTGEN_PORTABLE=1: -O0 -g, C assertions, bounds checks, only the fallbacks of fastgen/core/_platform.h), core tests"
FASTGEN_DEBUG=1 FASTGEN_PORTABLE=1 python -m pip install -q --no-cache-dir --no-build-isolation ".[test]"
(cd /tmp && python -c "import fastgen.core._core as c; assert not c.USES_MMAP, 'the FASTGEN_PORTABLE=1 build uses mmap'")
FASTGEN_HYPOTHESIS_PROFILE=ci pytest -q -x tests/test_vectors.py tests/test_rules.py tests/test_generate_api.py \
    tests/test_rollout.py tests/test_interrupt.py tests/test_platform.py tests/test_encode.py
rm -rf build

say "2/3: build with bounds checks on (FASTGEN_CHECKS=1), run all the tests and build the docs"
FASTGEN_CHECKS=1 python -m pip install -q --no-cache-dir --no-build-isolation ".[test,peers,rl,dask,docs,onnx]"
(cd /tmp && python -c "import fastgen, sys; print('fastgen', fastgen.__version__, 'from', fastgen.__file__)")
# The package's own type check ([tool.mypy] in pyproject.toml; every extra installed, so
# their types are read too): mypy comes with the test extra.
say "mypy -p fastgen"
mypy -p fastgen
# Every test but the sdist build (40 s), which exercises no compiled code of its own:
# stage 3 runs it (its build tools come with the test extra). Two workers (pytest-xdist),
# each test file on one of them, as the README's command runs them.
# The docs are built there too, by tests/test_docs.py: the site with warnings as errors,
# every example of its pages under Sphinx's doctest builder, each page in headless Chromium.
FASTGEN_HYPOTHESIS_PROFILE=ci pytest -q -x -n 2 --dist loadfile --ignore=tests/test_sdist.py

# Each README set-up command in a virtualenv of its own holding only what `python -m venv`
# gives, an upgraded pip and what the command installs; run from the root of a clean copy
# of the repository (a git clone, as a new user has it, with any uncommitted edits of
# tracked files applied), so no in-place build or stage above leaks in. Tests whose extra
# the command does not install skip, each with its reason (-rs).
n=0
for cmd in "${SETUP[@]}"; do
    n=$((n + 1))
    dir=$VENV_DIR/readme-$n
    mkdir -p "$dir"
    git clone -q --no-hardlinks "$ROOT" "$dir/fastgen"
    if ! git diff --quiet HEAD; then git diff --binary HEAD | git -C "$dir/fastgen" apply; fi
    say "3/3 ($n/${#SETUP[@]}): README command \`$cmd\` (fresh virtualenv, clean copy at $dir/fastgen)"
    $PY -m venv "$dir/venv"
    (
        export PATH="$dir/venv/bin:$PATH_BEFORE" VIRTUAL_ENV="$dir/venv"
        unset PYTHONPATH PYTHONHOME
        export FASTGEN_HYPOTHESIS_PROFILE=ci  # derandomized Hypothesis, as in every test run of CI
        python -m pip install -q --upgrade pip
        cd "$dir/fastgen"
        bash -euo pipefail -c "$cmd"
    )
done
say "CI passed"
