"""Sphinx configuration of fastgen's documentation site.

Build: ``sphinx-build -W -b html docs docs/_build/html`` (warnings are errors) and
``sphinx-build -b doctest docs docs/_build/doctest`` (runs every example of the site).
Needs the ``docs`` extra (``pip install ".[docs]"``) and an importable fastgen: the
repository's own when it is built in place (``python setup.py build_ext --inplace``),
else the installed one.
"""

import doctest
import importlib.util
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))
# The source tree documents itself when its compiled core is built in place; otherwise
# (CI after `pip install .`, an unpacked sdist) the installed package is documented.
if any((ROOT / "fastgen" / "core").glob("_core.*.so")) or any((ROOT / "fastgen" / "core").glob("_core.*.pyd")):
    sys.path.insert(0, str(ROOT))

import fastgen  # noqa: E402

project = "fastgen"
author = "the fastgen authors"
copyright = "the fastgen authors, MIT licence"
release = version = fastgen.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",  # the docstrings are numpydoc
    "sphinx.ext.doctest",
    "myst_parser",  # docs/RULES.md and docs/CONTRIBUTING.md stay Markdown, one source each
    "fastgen_docs",  # the board pictures, the core's file table, the public-name check
    "fastgen_floors",  # the package's floors (docs/architecture.rst), which tests/test_layout.py checks
    "fastgen_plots",  # the performance page's plots, from docs/_data/bench.json (matplotlib)
    "sphinx-mathjax-offline",  # MathJax shipped in the site (_static/mathjax): math renders offline
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
myst_heading_anchors = 3  # RULES.md links to CONTRIBUTING.md#where-each-rule-lives

# -- API pages
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"  # Network, not fastgen.nets.network.Network
# The signatures' type aliases (the private module fastgen/_typing.py) are shown as what
# they stand for, in public names a reader can look up (the API index page explains them).
autodoc_type_aliases = {
    "ArrayLike": "numpy.typing.ArrayLike",
    "DiceLike": "Sequence[SupportsIndex] | numpy.typing.NDArray",
    "StepsLike": "Sequence[Sequence[SupportsIndex]] | numpy.typing.NDArray",
    "Int8Array": "numpy.typing.NDArray[numpy.int8]",
    "Int64Array": "numpy.typing.NDArray[numpy.int64]",
    "Float32Array": "numpy.typing.NDArray[numpy.float32]",
}
autodoc_default_options = {"members": True, "show-inheritance": True}
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
# The optional extras' modules are documented even where the extra is absent.
autodoc_mock_imports = [m for m in ("gymnasium", "pettingzoo", "dask", "distributed") if importlib.util.find_spec(m) is None]

# -- Examples (sphinx-build -b doctest): every page's >>> blocks run, in page order.
doctest_global_setup = """
import importlib.util
import shutil
import numpy as np
import fastgen
# Examples that need an optional extra or program say so with :skipif: (CI has them all).
HAVE_GNUBG_NN = importlib.util.find_spec("gnubg_nn") is not None
HAVE_DASK = importlib.util.find_spec("distributed") is not None
HAVE_ONNX = importlib.util.find_spec("onnx") is not None and importlib.util.find_spec("onnxruntime") is not None
HAVE_GNUBG = shutil.which("gnubg") is not None or shutil.which("gnubg", path="/usr/games") is not None
REPO = %r  # the repository root: pages reading its files (tests/data) go there first
""" % str(ROOT)
# Pages whose examples need an optional extra: where one of its modules is absent, the
# page's examples are shown but not run (fastgen_docs says so in the build's output).
fastgen_doctest_needs = {"guides/rl": ["gymnasium", "pettingzoo"]}
doctest_default_flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE | doctest.DONT_ACCEPT_TRUE_FOR_1

# -- HTML
# A literal block (``::``) with no language shows as plain text: commands, output and
# tables are not Python (the Python of the pages is in >>> examples and testcode blocks).
highlight_language = "none"
html_theme = "furo"
html_title = f"fastgen {release}"
html_static_path = ["_static"]  # fastgen.css: the home page, the plots, literals and code
