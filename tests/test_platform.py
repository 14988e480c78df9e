"""The platform layer (fastgen/core/_platform.h) compiles and computes the same on every path.

The core's platform calls (mmap, madvise, GCC builtins) each have a fallback. The
FASTGEN_PORTABLE=1 build (a CI stage) runs the whole core on the fallbacks; this module
compiles the header alone with every C compiler found here, in each configuration that
can be imitated on this machine, and checks the results against plain reference code:
  native       the compiler's own path (GCC/Clang builtins, mmap)
  portable     -DFG_PORTABLE: plain C everywhere, heap memory
  no builtins  a compiler without __GNUC__ (tcc): the plain-C bit paths, chosen by itself
  MSVC         _MSC_VER with stand-ins for <intrin.h> (tcc): the MSVC intrinsics path
  no mmap      no __unix__ (tcc): the heap path, as on Windows
macOS and Windows themselves cannot run here (see the README).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import fastgen

HEADER_DIR = Path(fastgen.__file__).resolve().parent / "core"

CHECK_C = r"""
#include "_platform.h"
#include <stdio.h>

static int ref_clz(uint32_t m) { int n = 0; while (!(m & 0x80000000u)) { m <<= 1; n++; } return n; }
static int ref_ctz(uint32_t m) { int n = 0; while (!(m & 1u)) { m >>= 1; n++; } return n; }
static uint64_t ref_bswap(uint64_t x) {
    uint64_t r = 0;
    for (int i = 0; i < 8; i++) r |= ((x >> (8 * i)) & 0xFF) << (8 * (7 - i));
    return r;
}

int main(void) {
    int bad = 0;
    for (int b = 0; b < 32; b++) {
        uint32_t lo = 1u << b, hi = lo | (lo - 1), mid = lo | (lo >> 1) | 1u;
        if (fg_clz32(lo) != ref_clz(lo) || fg_clz32(hi) != ref_clz(hi) || fg_clz32(mid) != ref_clz(mid)) bad++;
        uint32_t top = 0xFFFFFFFFu << b, odd = lo | (lo << 1) | 0x80000000u;
        if (fg_ctz32(lo) != ref_ctz(lo) || fg_ctz32(top) != ref_ctz(top) || fg_ctz32(odd) != ref_ctz(odd)) bad++;
    }
    uint64_t x = 0x0123456789ABCDEFULL;
    for (int i = 0; i < 1000; i++) {
        if (fg_bswap64(x) != ref_bswap(x)) bad++;
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    }
    size_t n = (size_t)1 << 22;
    unsigned char* p = (unsigned char*)fg_reserve(n);
    if (!p) bad++;
    else {
        p[0] = 1; p[n - 1] = 2;
        fg_advise_huge(p, n);
        fg_discard(p + 4096, 4096);
        if (p[0] != 1 || p[n - 1] != 2) bad++;
        fg_unreserve(p, n);
    }
    int flag = 0;
    if (fg_stopped(&flag)) bad++;
    fg_request_stop(&flag);
    if (!fg_stopped(&flag)) bad++;
    printf("%d %d\n", FG_USES_MMAP, bad);
    return 0;
}
"""

FAKE_INTRIN_H = r"""
/* Stand-ins for MSVC's <intrin.h>, to compile _platform.h's MSVC path elsewhere. */
#include <stdint.h>
static unsigned char _BitScanReverse(unsigned long* index, unsigned long m) {
    unsigned long i = 31;
    if (!m) return 0;
    while (!(m >> i)) i--;
    *index = i;
    return 1;
}
static unsigned char _BitScanForward(unsigned long* index, unsigned long m) {
    unsigned long i = 0;
    if (!m) return 0;
    while (!((m >> i) & 1)) i++;
    *index = i;
    return 1;
}
static uint64_t _byteswap_uint64(uint64_t x) {
    uint64_t r = 0;
    for (int i = 0; i < 8; i++) r = (r << 8) | ((x >> (8 * i)) & 0xFF);
    return r;
}
"""

# (compiler, configuration name, extra flags, expected FG_USES_MMAP)
CONFIGS = [
    ("cc", "native", [], 1),
    ("cc", "portable", ["-DFG_PORTABLE"], 0),
    ("clang", "native", [], 1),
    ("clang", "portable", ["-DFG_PORTABLE"], 0),
    ("tcc", "no builtins", [], 1),
    ("tcc", "MSVC", ["-D_MSC_VER=1930", "-I{fake}"], 1),
    ("tcc", "MSVC, no mmap", ["-D_MSC_VER=1930", "-I{fake}", "-U__unix__", "-U__unix", "-Uunix"], 0),
]


@pytest.mark.parametrize("compiler, name, flags, mmap", CONFIGS, ids=[f"{c[0]}-{c[1]}" for c in CONFIGS])
def test_platform_header_paths_compile_and_agree(tmp_path, compiler, name, flags, mmap):
    exe = shutil.which(compiler)
    if exe is None:
        pytest.skip(f"{compiler} not installed (apt-get install {'gcc' if compiler == 'cc' else compiler})")
    (tmp_path / "check.c").write_text(CHECK_C)
    (tmp_path / "fake").mkdir()
    (tmp_path / "fake" / "intrin.h").write_text(FAKE_INTRIN_H)
    flags = [f.format(fake=tmp_path / "fake") for f in flags]
    cmd = [exe, "-D_DEFAULT_SOURCE", f"-I{HEADER_DIR}", *flags, str(tmp_path / "check.c"), "-o", str(tmp_path / "check")]
    built = subprocess.run(cmd, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    out = subprocess.run([str(tmp_path / "check")], capture_output=True, text=True, check=True).stdout.split()
    assert out == [str(mmap), "0"], f"{name}: FG_USES_MMAP and failures: {out}"
