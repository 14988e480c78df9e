#!/usr/bin/env bash
# CI: a fresh virtualenv, the package built first with Cython bounds checks ON and the
# tests run against it, then the README's test command on the normal (checks off) build.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
VENV=$(mktemp -d /tmp/fastgen-ci-XXXXXX)/venv
PY=${PYTHON:-python3}
echo "== fresh virtualenv at $VENV ($($PY --version))"
$PY -m venv "$VENV"
# shellcheck disable=SC1091
. "$VENV/bin/activate"
python -m pip install -q --upgrade pip
cd "$ROOT"
rm -rf build fastgen/_core.c fastgen/_core*.so

echo "== 1/2: build with bounds checks on (FASTGEN_CHECKS=1), run the tests"
FASTGEN_CHECKS=1 python -m pip install -q --no-cache-dir ".[test,peers]"
(cd /tmp && python -c "import fastgen, sys; print('fastgen', fastgen.__version__, 'from', fastgen.__file__)")
pytest -q -x -p no:randomly

echo "== 2/2: the README's test command (normal build)"
rm -rf build
pip install ".[test]" && pytest
