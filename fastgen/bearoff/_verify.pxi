# Part of fastgen/bearoff/_build.pyx (one extension: the C compiler inlines across the
# files it includes); the names and imports are _build.pyx's.
#
# Checking a bear-off file when it is opened (fastgen/bearoff/files.py turns the codes
# into messages): nogil loops over the memory-mapped arrays, each stopping at the first
# bad position. What a gnubg file guarantees, and so what is checked:
# - one-sided: every distribution (rolls to bear off, and with gammons rolls to bear off
#   the first checker) is integers summing to exactly 65535; position 0 (no checker left)
#   needs 0 rolls, every other position at least one; a position of fewer than 15 checkers
#   has its first checker off already (0 rolls), one of 15 needs at least one roll. In the
#   compressed layout each position's offset is the sum of the runs before it, a run is 1
#   to 32 values within rolls 0..31, begins and ends with a non-zero value, and the runs
#   fill the file exactly.
# - two-sided: every uint16 is an equity in [-1, 1], so the values themselves cannot be
#   out of range; the side on roll with no checker left has won (65535 in every value of
#   row 0) and one whose opponent has none left has lost (0 in column 0 below row 0).

cdef enum:
    # one-sided value faults; those of a first-checker distribution or run (values and
    # index alike) are the code + GAMMON_FAULT
    BAD_SUM = 1          # got = the sum
    BAD_ZERO = 2         # got = the stored probability of 0 rolls
    BAD_RUN_END = 3      # got = the roll whose value is 0 at an end of the run
    GAMMON_FAULT = 10
    # compressed index faults
    BAD_OFFSET = 21      # got = the stored offset
    BAD_COUNT = 22       # got = the run's length
    BAD_FIRST = 23       # got = the run's first roll
    BAD_LENGTH = 24      # position = -1: got = the values the index needs
    # two-sided
    BAD_WON = 41         # position = the opponent's number, got = the value
    BAD_LOST = 42        # position = the side on roll's number, got = the value


cdef inline int check_sum(int64_t s, uint32_t at_zero, int zero_full, int64_t* got) noexcept nogil:
    """0, or the fault of a distribution of sum s whose probability of 0 rolls is
    at_zero: s is not 65535, or at_zero is not 65535 (zero_full) or 0 (not zero_full)."""
    if s != 65535:
        got[0] = s
        return BAD_SUM
    if at_zero != (65535 if zero_full else 0):
        got[0] = at_zero
        return BAD_ZERO
    return 0


def verify_one_sided(const uint16_t[:, :] rolls, const uint16_t[:, :] gammon, const uint32_t[:] offset,
                     const uint8_t[:] nz, const uint8_t[:] ioff, const uint8_t[:] nzg,
                     const uint8_t[:] ioffg, const uint16_t[:] data, int64_t fewer, int values):
    """(position, fault, got) of the first bad position of a one-sided database held in
    the arrays of OneSidedDatabase.storage() (position -1, fault 0 when all is well).
    `fewer` is the number of positions of fewer than 15 checkers. The compressed layout's
    index is always checked (a bad one would read outside the file); the distributions
    only with `values`."""
    cdef int tables = rolls.shape[0] > 0
    cdef int gam = gammon.shape[0] > 0 if tables else nzg.shape[0] > 0
    cdef Py_ssize_t n = rolls.shape[0] if tables else nz.shape[0]
    cdef Py_ssize_t x = 0
    cdef int j, k, fault = 0, cnt, lo
    cdef int64_t got = 0, total = 0, base
    cdef uint32_t at_zero = 0
    with nogil:
        if not tables:
            for x in range(n):
                if offset[x] != total:
                    fault = BAD_OFFSET
                    got = offset[x]
                    break
                for k in range(1 + gam):
                    cnt = nz[x] if k == 0 else nzg[x]
                    lo = ioff[x] if k == 0 else ioffg[x]
                    if cnt < 1 or cnt > NDIST:
                        fault = BAD_COUNT
                        got = cnt
                    elif lo + cnt > NDIST:
                        fault = BAD_FIRST
                        got = lo
                    if fault:
                        if k:
                            fault += GAMMON_FAULT
                        break
                    total += cnt
                if fault:
                    break
            if not fault and total != data.shape[0]:
                x = -1
                fault = BAD_LENGTH
                got = total
        if values and not fault:
            for x in range(n):
                for k in range(1 + gam):
                    total = 0
                    if tables:
                        for j in range(NDIST):
                            total += rolls[x, j] if k == 0 else gammon[x, j]
                        at_zero = rolls[x, 0] if k == 0 else gammon[x, 0]
                    else:   # the run, in place: its ends non-zero, its sum
                        base = offset[x] + (nz[x] if k else 0)
                        cnt = nz[x] if k == 0 else nzg[x]
                        lo = ioff[x] if k == 0 else ioffg[x]
                        if data[base] == 0:
                            fault = BAD_RUN_END
                            got = lo
                        elif data[base + cnt - 1] == 0:
                            fault = BAD_RUN_END
                            got = lo + cnt - 1
                        for j in range(cnt):
                            total += data[base + j]
                        at_zero = data[base] if lo == 0 else 0
                    if not fault:
                        fault = check_sum(total, at_zero, (x == 0) if k == 0 else (x < fewer), &got)
                    if fault:
                        if k:
                            fault += GAMMON_FAULT
                        break
                if fault:
                    break
    if not fault:
        return -1, 0, 0
    return x, fault, got


def verify_two_sided(const uint16_t[:, :, :] values):
    """(position, fault, got) of the first bad entry of a two-sided (n, n, K) table:
    row 0 (the side on roll has borne off) must hold 65535, column 0 below it (the
    opponent has) 0; (-1, 0, 0) when all is well."""
    cdef Py_ssize_t n = values.shape[0], K = values.shape[2], i = 0, k
    cdef int fault = 0
    cdef int64_t got = 0
    with nogil:
        for i in range(n):
            for k in range(K):
                if values[0, i, k] != 65535:
                    fault = BAD_WON
                    got = values[0, i, k]
                    break
            if fault:
                break
        if not fault:
            for i in range(1, n):
                for k in range(K):
                    if values[i, 0, k] != 0:
                        fault = BAD_LOST
                        got = values[i, 0, k]
                        break
                if fault:
                    break
    if not fault:
        return -1, 0, 0
    return i, fault, got
