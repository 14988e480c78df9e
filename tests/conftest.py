"""Shared test configuration: Hypothesis profiles, test order and the ``impl`` fixture.

Profiles are chosen with the environment variable ``FASTGEN_HYPOTHESIS_PROFILE``:

- ``default`` (when unset, for runs by hand): random, a new set of examples every run
  (and failures replayed from the local example database), so repeated runs keep
  exploring; the differential tests together draw well over 5,000 positions (see
  ``EXAMPLES_PER_TEST`` in test_differential.py), no deadline, failing examples printed
  with a reproduction blob;
- ``ci`` (set by ``ci/test.sh``): the same number of examples, derandomized (the
  examples are a fixed function of each test, no example database), so a CI run is
  reproducible and a red CI is red again on a rerun;
- ``large``: ten times as many (over 50,000 positions), for a nightly or pre-release run.

``pytest tests/test_differential.py`` runs the default profile in well under a minute.
``tests/test_vectors.py`` always runs first (see :func:`pytest_collection_modifyitems`).
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
# derandomize=False is explicit: where the environment variable CI is set, Hypothesis's
# own defaults are derandomized, and the hand-run profiles must stay random there too.
settings.register_profile("default", max_examples=700, derandomize=False, **_COMMON)
settings.register_profile("ci", max_examples=700, derandomize=True, database=None, **_COMMON)
settings.register_profile("large", max_examples=7_000, derandomize=False, **_COMMON)
settings.load_profile(os.environ.get("FASTGEN_HYPOTHESIS_PROFILE", "default"))


def pytest_collection_modifyitems(session, config, items):
    """Run the published vector tests first: a core bug is then first reported with the
    position and roll that differ, not by a later test that only sees a wrong total."""
    items.sort(key=lambda item: 0 if item.path.name == "test_vectors.py" else 1)  # stable


@pytest.fixture(params=["core", "reference"])
def impl(request):
    """``legal_plays`` of the compiled core and of the pure-Python oracle, in turn."""
    if request.param == "core":
        import fastgen

        return fastgen.legal_plays
    from fastgen import reference

    return reference.legal_plays


@pytest.fixture(scope="module")
def client():
    """A real Dask cluster of two single-threaded worker processes on 127.0.0.1, one per
    test module, closed after it (tests/test_cluster*.py)."""
    distributed = pytest.importorskip("distributed", reason="dask not installed: pip install '.[dask]'")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0"
    ) as cluster, distributed.Client(cluster, timeout="60s") as c:
        c.wait_for_workers(2, timeout=60)
        yield c
