"""Run the docstring examples of every public module of the installed package."""

import doctest
import importlib
import pkgutil

import pytest

import fastgen

MODULES = sorted(
    m.name for m in pkgutil.iter_modules(fastgen.__path__, "fastgen.") if not m.name.startswith("fastgen._")
) + ["fastgen"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module(name)
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert failures == 0, f"{failures} doctest failure(s) in {name}"
