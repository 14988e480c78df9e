"""Shared test configuration: Hypothesis profiles and the ``impl`` fixture.

Profiles are chosen with the environment variable ``FASTGEN_HYPOTHESIS_PROFILE``:

- ``default`` (when unset) and ``ci``: the differential tests together draw well over
  5,000 positions (see ``EXAMPLES_PER_TEST`` in test_differential.py), no deadline,
  failing examples printed with a reproduction blob;
- ``large``: ten times as many (over 50,000 positions), for a nightly or pre-release run.

``pytest tests/test_differential.py`` runs the default profile in well under a minute.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

# max_examples here is per test; test_differential.py has 8 Hypothesis tests drawing
# positions, so 700 x 8 = 5,600 (default, ci) and 7,000 x 8 = 56,000 (large).
_COMMON = dict(
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("default", max_examples=700, **_COMMON)
settings.register_profile("ci", max_examples=700, derandomize=True, **_COMMON)
settings.register_profile("large", max_examples=7_000, **_COMMON)
settings.load_profile(os.environ.get("FASTGEN_HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(params=["core", "reference"])
def impl(request):
    """``legal_plays`` of the compiled core and of the pure-Python oracle, in turn."""
    if request.param == "core":
        import fastgen

        return fastgen.legal_plays
    from fastgen import reference

    return reference.legal_plays
