#!/usr/bin/env bash
# CI: a fresh virtualenv; the package built in debug mode (core tests), then with Cython
# bounds checks on (all tests), then the README's test command on the normal build.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
VENV_DIR=$(mktemp -d /tmp/fastgen-ci-XXXXXX)
VENV=$VENV_DIR/venv
trap 'rm -rf "$VENV_DIR"' EXIT  # the temporary virtualenv goes when CI ends, pass or fail
PY=${PYTHON:-python3}
# Real programs the tests compare against (GNU Backgammon, a headless browser): Debian packages.
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    missing=""
    [ -x /usr/games/gnubg ] || missing="$missing gnubg"
    command -v chromium >/dev/null || missing="$missing chromium"
    if [ -n "$missing" ]; then
        echo "== apt-get install$missing"
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
    fi
fi
echo "== fresh virtualenv at $VENV ($($PY --version))"
$PY -m venv "$VENV"
# shellcheck disable=SC1091
. "$VENV/bin/activate"
python -m pip install -q --upgrade pip
cd "$ROOT"
rm -rf build fastgen/core/_*.c fastgen/core/_*.so fastgen/envs/_*.c fastgen/envs/_*.so  # in-place builds

echo "== 1/3: debug build (FASTGEN_DEBUG=1: -O0 -g, C assertions, bounds checks), core tests"
FASTGEN_DEBUG=1 python -m pip install -q --no-cache-dir ".[test]"
FASTGEN_HYPOTHESIS_PROFILE=ci pytest -q -x tests/test_vectors.py tests/test_rules.py tests/test_generate_api.py tests/test_rollout.py
rm -rf build

echo "== portable build (FASTGEN_PORTABLE=1: only the fallbacks of fastgen/core/_platform.h), core tests"
# tests/test_platform.py also compiles the header with clang and tcc (a compiler without
# GCC builtins), imitating the MSVC and no-mmap paths: Debian packages.
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    ccs=""
    for cc in clang tcc; do command -v $cc >/dev/null || ccs="$ccs $cc"; done
    if [ -n "$ccs" ]; then
        echo "== apt-get install$ccs"
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $ccs >/dev/null) \
            || echo "could not install$ccs: their tests/test_platform.py cases will skip"
    fi
fi
FASTGEN_PORTABLE=1 python -m pip install -q --no-cache-dir ".[test]"
(cd /tmp && python -c "import fastgen.core._core as c; assert not c.USES_MMAP, 'the FASTGEN_PORTABLE=1 build uses mmap'")
FASTGEN_HYPOTHESIS_PROFILE=ci pytest -q -x tests/test_vectors.py tests/test_rules.py tests/test_generate_api.py \
    tests/test_rollout.py tests/test_interrupt.py tests/test_platform.py tests/test_encode.py
rm -rf build

echo "== 2/3: build with bounds checks on (FASTGEN_CHECKS=1), run all the tests and build the docs"
FASTGEN_CHECKS=1 python -m pip install -q --no-cache-dir ".[test,peers,rl,dask,docs]"
(cd /tmp && python -c "import fastgen, sys; print('fastgen', fastgen.__version__, 'from', fastgen.__file__)")
# The package's own type check ([tool.mypy] in pyproject.toml; every extra installed, so
# their types are read too): mypy comes with the test extra.
echo "== mypy -p fastgen"
mypy -p fastgen
# Every test but two that exercise no compiled code of their own and are the slowest: the
# rollouts against the real gnubg (2.5 min) and the sdist build (40 s); stage 3 runs them.
FASTGEN_HYPOTHESIS_PROFILE=ci pytest -q -x --ignore=tests/test_decide_gnubg.py --ignore=tests/test_sdist.py
echo "== docs: the site with warnings as errors, then every example of its pages"
sphinx-build -q -W -b html docs "$VENV_DIR/docs-html"
sphinx-build -q -b doctest docs "$VENV_DIR/docs-doctest"

echo "== 3/3: the README's test command (normal build)"
rm -rf build
pip install ".[test]" && FASTGEN_HYPOTHESIS_PROFILE=ci pytest
