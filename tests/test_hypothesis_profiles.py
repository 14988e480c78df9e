"""The Hypothesis profiles of tests/conftest.py and the one CI uses.

CI must be reproducible (the ``ci`` profile: derandomized, no example database), runs by
hand keep exploring (``default``: random), and ci/test.sh selects ``ci`` for every pytest
run it makes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import settings

CI_SCRIPT = Path(__file__).resolve().parent.parent / "ci" / "test.sh"


def test_ci_profile_is_derandomized_and_default_is_not():
    ci, default, large = (settings.get_profile(name) for name in ("ci", "default", "large"))
    assert ci.derandomize and ci.database is None
    assert not default.derandomize and not large.derandomize
    assert ci.max_examples == default.max_examples  # the same breadth, fixed examples
    assert large.max_examples >= 10 * default.max_examples


def test_ci_script_runs_every_pytest_with_the_ci_profile():
    if not CI_SCRIPT.exists():
        pytest.skip("ci/test.sh is not part of this copy (an sdist)")
    lines = [line for line in CI_SCRIPT.read_text().splitlines() if not line.lstrip().startswith("#")]
    runs = [line for line in lines if re.search(r"(^|[\s&;(])pytest(\s|$)", line)]
    assert runs, "ci/test.sh runs no pytest"
    for line in runs:
        assert re.search(r"FASTGEN_HYPOTHESIS_PROFILE=ci pytest", line), line
    # The README's set-up commands (read from README.md, one of them runs pytest) run in a
    # subshell that exports the profile first.
    stripped = [line.strip() for line in lines]
    run = stripped.index('bash -euo pipefail -c "$cmd"')
    start = max(i for i, line in enumerate(stripped[:run]) if line == "(")
    assert any(line.startswith("export FASTGEN_HYPOTHESIS_PROFILE=ci") for line in stripped[start:run])
    assert not any("FASTGEN_HYPOTHESIS_PROFILE" in line for line in stripped[start:run] if "export" not in line)


def test_vector_tests_are_collected_first(request):
    names = [item.path.name for item in request.session.items]
    if "test_vectors.py" in names:
        first_other = next(i for i, n in enumerate(names) if n != "test_vectors.py")
        assert all(n != "test_vectors.py" for n in names[first_other:]), "vector tests are not all first"
        assert names[0] == "test_vectors.py"
