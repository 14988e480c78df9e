/* Platform layer of fastgen's compiled core (included by _core.pyx).
 *
 * Everything the core needs beyond ISO C, each with a portable fallback:
 *   fg_reserve / fg_unreserve    address space for large outputs: mmap (MAP_NORESERVE) where
 *                                POSIX mmap exists, else malloc / free
 *   fg_advise_huge               ask for transparent huge pages (Linux MADV_HUGEPAGE), else nothing
 *   fg_discard                   hand written pages back early (MADV_DONTNEED), else nothing
 *   fg_clz32, fg_ctz32, fg_bswap64  GCC/Clang builtins, MSVC intrinsics, else plain C
 *   fg_stopped, fg_request_stop  a stop flag read by nogil loops and set from another thread
 *
 * Building with FASTGEN_PORTABLE=1 (setup.py defines FG_PORTABLE) compiles only the
 * fallbacks, as on a platform that has none of these, so CI can test them on Linux.
 */
#ifndef FASTGEN_PLATFORM_H
#define FASTGEN_PLATFORM_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#if !defined(FG_PORTABLE) && (defined(__unix__) || defined(__APPLE__))
#  include <unistd.h>
#  if defined(_POSIX_MAPPED_FILES) && _POSIX_MAPPED_FILES > 0
#    include <sys/mman.h>
#    if defined(MAP_ANONYMOUS) || defined(MAP_ANON)
#      define FG_HAVE_MMAP 1
#    endif
#  endif
#endif

#if !defined(FG_PORTABLE) && defined(_MSC_VER)
#  include <intrin.h>
#  pragma intrinsic(_BitScanReverse, _BitScanForward)
#endif

/* ------------------------------------------------------------------ memory */

#ifdef FG_HAVE_MMAP
#  ifndef MAP_ANONYMOUS
#    define MAP_ANONYMOUS MAP_ANON
#  endif
#  ifndef MAP_NORESERVE
#    define MAP_NORESERVE 0
#  endif
#  define FG_USES_MMAP 1

/* nbytes of address space (pages become memory when written), or NULL. */
static inline void* fg_reserve(size_t nbytes) {
    void* p = mmap(NULL, nbytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static inline void fg_unreserve(void* p, size_t nbytes) {
    if (p != NULL) munmap(p, nbytes);
}

/* Advisory only: p..p+nbytes must lie in memory the core owns (page-aligned inside). */
static inline void fg_advise_huge(void* p, size_t nbytes) {
#  ifdef MADV_HUGEPAGE
    madvise(p, nbytes, MADV_HUGEPAGE);
#  else
    (void)p; (void)nbytes;
#  endif
}

/* The pages of p..p+nbytes (page-aligned) are no longer needed: give them back. */
static inline void fg_discard(void* p, size_t nbytes) {
#  ifdef MADV_DONTNEED
    madvise(p, nbytes, MADV_DONTNEED);
#  else
    (void)p; (void)nbytes;
#  endif
}

#else  /* no mmap: plain heap memory; large reservations may fail, the caller falls back */
#  define FG_USES_MMAP 0

static inline void* fg_reserve(size_t nbytes) { return malloc(nbytes); }
static inline void fg_unreserve(void* p, size_t nbytes) { (void)nbytes; free(p); }
static inline void fg_advise_huge(void* p, size_t nbytes) { (void)p; (void)nbytes; }
static inline void fg_discard(void* p, size_t nbytes) { (void)p; (void)nbytes; }

#endif

/* ------------------------------------------------------------------ bits */

/* Leading zero bits of m (m != 0). */
static inline int fg_clz32(uint32_t m) {
#if !defined(FG_PORTABLE) && (defined(__GNUC__) || defined(__clang__))
    return __builtin_clz(m);
#elif !defined(FG_PORTABLE) && defined(_MSC_VER)
    unsigned long i;
    _BitScanReverse(&i, m);
    return 31 - (int)i;
#else
    int n = 0;
    if (m <= 0x0000FFFFu) { n += 16; m <<= 16; }
    if (m <= 0x00FFFFFFu) { n += 8; m <<= 8; }
    if (m <= 0x0FFFFFFFu) { n += 4; m <<= 4; }
    if (m <= 0x3FFFFFFFu) { n += 2; m <<= 2; }
    if (m <= 0x7FFFFFFFu) { n += 1; }
    return n;
#endif
}

/* Trailing zero bits of m (m != 0). */
static inline int fg_ctz32(uint32_t m) {
#if !defined(FG_PORTABLE) && (defined(__GNUC__) || defined(__clang__))
    return __builtin_ctz(m);
#elif !defined(FG_PORTABLE) && defined(_MSC_VER)
    unsigned long i;
    _BitScanForward(&i, m);
    return (int)i;
#else
    int n = 0;
    if (!(m & 0x0000FFFFu)) { n += 16; m >>= 16; }
    if (!(m & 0x000000FFu)) { n += 8; m >>= 8; }
    if (!(m & 0x0000000Fu)) { n += 4; m >>= 4; }
    if (!(m & 0x00000003u)) { n += 2; m >>= 2; }
    if (!(m & 0x00000001u)) { n += 1; }
    return n;
#endif
}

/* The 8 bytes of x in reverse order. */
static inline uint64_t fg_bswap64(uint64_t x) {
#if !defined(FG_PORTABLE) && (defined(__GNUC__) || defined(__clang__))
    return __builtin_bswap64(x);
#elif !defined(FG_PORTABLE) && defined(_MSC_VER)
    return _byteswap_uint64(x);
#else
    x = ((x & 0x00000000FFFFFFFFULL) << 32) | (x >> 32);
    x = ((x & 0x0000FFFF0000FFFFULL) << 16) | ((x >> 16) & 0x0000FFFF0000FFFFULL);
    return ((x & 0x00FF00FF00FF00FFULL) << 8) | ((x >> 8) & 0x00FF00FF00FF00FFULL);
#endif
}

/* ------------------------------------------------------------------ stop flag */

/* A flag one thread sets and nogil loops in others poll between positions or games.
 * volatile: every poll reads memory (a loop must not keep the first value). */
static inline int fg_stopped(const int* flag) { return *(const volatile int*)flag; }
static inline void fg_request_stop(int* flag) { *(volatile int*)flag = 1; }

#endif /* FASTGEN_PLATFORM_H */
