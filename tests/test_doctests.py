"""Run the docstring examples of every module of the installed package, subpackages too.

A module whose optional extra is absent is skipped with the extra's name (the extras'
tests run in CI's stage with every extra installed).
"""

import doctest
import importlib
import pkgutil

import pytest

import fastgen

#: The optional extras and the pip command that brings each (pyproject's extras).
EXTRA_OF = {
    "gymnasium": "rl", "pettingzoo": "rl", "dask": "dask", "distributed": "dask",
    "gnubg_nn": "peers", "matplotlib": "plot", "onnx": "onnx", "onnxruntime": "onnx",
}

MODULES = sorted(
    m.name for m in pkgutil.walk_packages(fastgen.__path__, "fastgen.") if not m.name.rsplit(".", 1)[-1].startswith("__")
) + ["fastgen"]


def test_the_walk_reaches_subpackages():
    assert {"fastgen.core.notation", "fastgen.sim.decide.front", "fastgen.bearoff.evaluate"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as err:
        extra = EXTRA_OF.get((err.name or "").split(".")[0])
        if extra is None:
            raise
        pytest.skip(f"{name} needs the {extra} extra: pip install '.[{extra}]'")
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert failures == 0, f"{failures} doctest failure(s) in {name}"
