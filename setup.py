"""Build the compiled core (fastgen._core).

Environment:
  FASTGEN_DEBUG=1   build with -O0 -g, C assertions on, Cython bounds/wraparound checks on.
  FASTGEN_CHECKS=1  keep -O3 but turn Cython bounds/wraparound checks on (used by CI first).
"""

import os

from Cython.Build import cythonize
import numpy
from setuptools import Extension, setup

DEBUG = os.environ.get("FASTGEN_DEBUG") == "1"
CHECKS = DEBUG or os.environ.get("FASTGEN_CHECKS") == "1"

if DEBUG:
    compile_args = ["-O0", "-g", "-UNDEBUG"]
else:
    compile_args = ["-O3", "-DNDEBUG"]

directives = {
    "language_level": 3,
    "boundscheck": CHECKS,
    "wraparound": CHECKS,
    "initializedcheck": CHECKS,
    "cdivision": True,
    "embedsignature": True,
}

extensions = [
    Extension(
        "fastgen._core",
        ["fastgen/_core.pyx"],
        include_dirs=[numpy.get_include()],
        extra_compile_args=compile_args,
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    ),
    # network input encoders (fastgen.features): plain C loops, no numpy C API
    Extension(
        "fastgen._features",
        ["fastgen/_features.pyx"],
        include_dirs=["fastgen"],
        depends=["fastgen/_features.h"],
        extra_compile_args=compile_args,
    ),
    # the RL environments' game kernel (fastgen.envs): plain C loops, no numpy C API
    Extension(
        "fastgen.envs._kernel",
        ["fastgen/envs/_kernel.pyx"],
        extra_compile_args=compile_args,
    ),
]

# force: the directives above are not part of cythonize's staleness check, so always regenerate.
setup(ext_modules=cythonize(extensions, compiler_directives=directives, force=True))
