# Part of the .mat scanner: included into fastgen/formats/_matscan.pyx (one extension,
# so the C compiler inlines across them); the names, types and imports are _matscan.pyx's.
#
# The text side: reading a file into memory (POSIX calls, none on Windows), its bytes
# and lines, the header (tags and the match's rules), a game's players and scores, and
# the column entries of move lines, each as fastgen/formats/matfile.py reads them.


cdef extern from *:
    """
    /* The whole of a regular file of at most `limit` bytes, in memory from malloc (the
       caller frees it): its size, or -1 when it cannot be read so (no such file, not a
       regular file, larger than limit or growing, a read error), left to the Python
       reader, which names the problem. Opened as fastgen.formats.checked opens files:
       nothing is read from a FIFO, a device or a folder, and opening a FIFO does not
       block. No POSIX calls (Windows): -2, and the Python side reads the files. */
    #if defined(_WIN32)
    static long long fg_read_file(const char* path, long long limit, char** out) { return -2; }
    #else
    #include <errno.h>
    #include <fcntl.h>
    #include <stdlib.h>
    #include <sys/stat.h>
    #include <unistd.h>
    #ifndef O_CLOEXEC
    #define O_CLOEXEC 0
    #endif
    static long long fg_read_file(const char* path, long long limit, char** out) {
        struct stat st;
        long long cap, n = 0;
        ssize_t got;
        char* buf;
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            return -1;
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > limit) {
            close(fd);
            return -1;
        }
        cap = (long long) st.st_size + 1;
        buf = (char*) malloc((size_t) cap);
        if (buf == NULL) {
            close(fd);
            return -1;
        }
        for (;;) {
            got = read(fd, buf + n, (size_t) (cap - n));
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0)
                break;
            n += got;
            if (n == cap)  /* it grew while read */
                break;
        }
        close(fd);
        if (got < 0 || n == cap) {
            free(buf);
            return -1;
        }
        *out = buf;
        return n;
    }
    #endif
    """
    long long fg_read_file(const char* path, long long limit, char** out) noexcept nogil

# ---------------------------------------------------------------- text helpers

cdef inline int is_space(unsigned char c) noexcept nogil:
    return c == 32 or c == 9


cdef inline int is_digit(unsigned char c) noexcept nogil:
    return <unsigned char> (c - 48) < 10


cdef inline unsigned char lower(unsigned char c) noexcept nogil:
    return c | 0x20 if <unsigned char> (c - 65) < 26 else c


cdef inline int eq_ci(Text p, int64_t a, int64_t b, const char* word) noexcept nogil:
    """Whether bytes a..b are *word* (lower case), ignoring case."""
    cdef int64_t i = 0
    while word[i]:
        if a + i >= b or lower(p[a + i]) != <unsigned char> word[i]:
            return 0
        i += 1
    return a + i == b


cdef inline int starts_ci(Text p, int64_t a, int64_t b, const char* word) noexcept nogil:
    """Length of *word* when bytes a..b start with it (ignoring case), else 0."""
    cdef int64_t i = 0
    while word[i]:
        if a + i >= b or lower(p[a + i]) != <unsigned char> word[i]:
            return 0
        i += 1
    return <int> i


cdef inline void strip(Text p, int64_t* a, int64_t* b) noexcept nogil:
    while a[0] < b[0] and is_space(p[a[0]]):
        a[0] += 1
    while b[0] > a[0] and is_space(p[b[0] - 1]):
        b[0] -= 1


cdef inline int blank(Text p, int64_t a, int64_t b) noexcept nogil:
    strip(p, &a, &b)
    return a == b


cdef inline int only(Text p, int64_t a, int64_t b, unsigned char c, unsigned char d) noexcept nogil:
    """Whether every byte of a..b is c or d."""
    while a < b:
        if p[a] != c and p[a] != d:
            return 0
        a += 1
    return 1


cdef int odd_bytes(Src* s) noexcept nogil:
    """Whether the file holds a byte left to the Python reader: a control character but
    for tab, line feed and carriage return (a NUL, other line breaks such as \\f or
    \\x1c, DEL). Notes a carriage return and bytes past ASCII (UTF-8 or Latin-1 letters,
    which the Python side checks; see the Scanner's docstring)."""
    cdef unsigned int bad = 0, cr = 0, high = 0
    cdef unsigned char c
    cdef int64_t i
    for i in range(s.n):  # vectorised by the compiler
        c = s.p[i]
        bad |= (c == 127) | ((c < 32) & (c != 9) & (c != 10) & (c != 13))
        cr |= c == 13
        high |= c >= 128
    s.cr = cr
    s.nonascii = high
    return bad != 0


cdef inline int next_line(Src* s, int64_t* pos, int64_t* a, int64_t* b) noexcept nogil:
    """The next line, as str.splitlines cuts it (at \\n, \\r\\n, \\r): 1, or 0 at the end."""
    cdef int64_t i = pos[0]
    cdef const void* nl
    if i >= s.n:
        return 0
    a[0] = i
    if not s.cr:
        nl = memchr(s.p + i, 10, s.n - i)
        i = s.n if nl == NULL else <Text> nl - s.p
        b[0] = i
        pos[0] = i + 1 if i < s.n else i
        return 1
    while i < s.n and s.p[i] != 10 and s.p[i] != 13:
        i += 1
    b[0] = i
    if i < s.n:
        i += 2 if s.p[i] == 13 and i + 1 < s.n and s.p[i + 1] == 10 else 1
    pos[0] = i
    return 1


cdef int words(Text p, int64_t a, int64_t b, int64_t* w) noexcept nogil:
    """Spans of the first three whitespace-separated words of a..b in w[0..5]; returns how
    many words there are (4 for more than three)."""
    cdef int k = 0
    while k < 3:
        while a < b and is_space(p[a]):
            a += 1
        if a >= b:
            return k
        w[2 * k] = a
        while a < b and not is_space(p[a]):
            a += 1
        w[2 * k + 1] = a
        k += 1
    while a < b and is_space(p[a]):
        a += 1
    return 4 if a < b else 3


cdef int64_t number(Text p, int64_t a, int64_t b) noexcept nogil:
    """The matfile reader's _number: 1 to 6 ASCII digits; -1 otherwise."""
    cdef int64_t v = 0
    if a >= b or b - a > 6:
        return -1
    while a < b:
        if not is_digit(p[a]):
            return -1
        v = v * 10 + (p[a] - 48)
        a += 1
    return v


cdef inline int game_line(Text p, int64_t a, int64_t b, int64_t* w) noexcept nogil:
    """Whether the stripped line a..b is ``Game N`` (two words, the first "game")."""
    return (lower(p[a]) == 103 and b - a > 5 and words(p, a, b, w) == 2
            and eq_ci(p, w[0], w[1], b"game"))


# ---------------------------------------------------------------- the header

cdef void read_tag(Text p, int64_t a, int64_t b, Rules* r) noexcept nogil:
    """A ``; [Name "value"]`` comment (a..b: after the ';'), read as _parse_tag reads it;
    keeps the values of the tags that make the match's rules."""
    cdef int64_t na, nb, va, vb, k, i
    cdef int slot, alnum
    strip(p, &a, &b)
    if b - a < 3 or p[a] != 91 or p[b - 2] != 34 or p[b - 1] != 93:  # [ ... "]
        return
    k = -1
    i = a + 1
    while i + 1 < b - 2:
        if p[i] == 32 and p[i + 1] == 34:
            k = i
            break
        i += 1
    if k < 0:
        return
    na, nb, va, vb = a + 1, k, k + 2, b - 2
    for i in range(va, vb):
        if p[i] == 34 or p[i] == 9:  # '"', or not printable (a tab; the rest was refused)
            return
    strip(p, &na, &nb)
    alnum = 0
    for i in range(na, nb):
        if p[i] == 32:
            continue
        if not (is_digit(p[i]) or <unsigned char> (lower(p[i]) - 97) < 26):
            return
        alnum = 1
    if not alnum:
        return
    if eq_ci(p, na, nb, b"variation"):
        slot = 0
    elif eq_ci(p, na, nb, b"cubelimit"):
        slot = 1
    elif eq_ci(p, na, nb, b"crawford"):
        slot = 2
    elif eq_ci(p, na, nb, b"jacoby"):
        slot = 3
    elif eq_ci(p, na, nb, b"player 1"):
        slot = 4
    elif eq_ci(p, na, nb, b"player 2"):
        slot = 5
    else:
        return
    r.tag_a[slot] = va
    r.tag_b[slot] = vb


cdef int on_off(Text p, int64_t a, int64_t b) noexcept nogil:
    """1 or 0 for the On/Off tag values the reader accepts, -1 for others."""
    if eq_ci(p, a, b, b"on") or eq_ci(p, a, b, b"yes") or eq_ci(p, a, b, b"true"):
        return 1
    if eq_ci(p, a, b, b"off") or eq_ci(p, a, b, b"no") or eq_ci(p, a, b, b"false"):
        return 0
    return -1


cdef int read_header(Src* s, Rules* r, int64_t* pos, int64_t* num_a, int64_t* num_b) noexcept nogil:
    """The header up to the first game line, then the rules it gives (as _new_match makes
    them); *pos* ends after the game line, num_a..num_b is the game's number."""
    cdef Text p = s.p
    cdef int64_t a, b
    cdef int64_t w[6]
    cdef int k, flag
    r.length = -1
    for k in range(6):
        r.tag_a[k] = -1
        r.tag_b[k] = -1
    while True:
        if not next_line(s, pos, &a, &b):
            return R_NO_GAME
        strip(p, &a, &b)
        if a == b:
            continue
        if p[a] == 59 or p[a] == 35:  # ; #
            if r.length < 0:
                read_tag(p, a + 1, b, r)
            continue
        k = words(p, a, b, w)
        if r.length < 0:
            if k != 3 or not eq_ci(p, w[2], w[3], b"point") or not eq_ci(p, w[4], w[5], b"match"):
                return R_HEADER
            r.length = number(p, w[0], w[1])
            if r.length < 0 or r.length > 32767:
                return R_HEADER
            continue
        if k == 2 and eq_ci(p, w[0], w[1], b"game"):
            num_a[0] = w[2]
            num_b[0] = w[3]
            break
        return R_HEADER
    # the rules (_new_match, Match, Game)
    if r.tag_a[0] >= 0:
        a, b = r.tag_a[0], r.tag_b[0]
        strip(p, &a, &b)
        if not (a == b or eq_ci(p, a, b, b"backgammon") or eq_ci(p, a, b, b"standard")):
            return R_HEADER
    r.cube_cap = 4096
    if r.tag_a[1] >= 0:
        r.cube_cap = number(p, r.tag_a[1], r.tag_b[1])
        if r.cube_cap < 1 or r.cube_cap & (r.cube_cap - 1):
            return R_HEADER
    r.crawford = 1
    if r.tag_a[2] >= 0:
        r.crawford = on_off(p, r.tag_a[2], r.tag_b[2])
        if r.crawford < 0:
            return R_HEADER
    r.crawford = r.crawford and r.length > 0
    r.jacoby = 0
    if r.tag_a[3] >= 0:
        flag = on_off(p, r.tag_a[3], r.tag_b[3])
        if flag < 0:
            return R_HEADER
        r.jacoby = flag and r.length == 0
    return OK


cdef int name_and_score(Text p, int64_t a, int64_t b, int64_t* na, int64_t* nb, int64_t* score,
                        int64_t* rest) noexcept nogil:
    """``name : score rest`` as _name_and_score reads it; -1 when it cannot."""
    cdef int64_t i = a, t
    while i < b and p[i] != 58:  # ':'
        i += 1
    if i >= b:
        return -1
    na[0] = a
    nb[0] = i
    strip(p, na, nb)
    i += 1
    while i < b and is_space(p[i]):
        i += 1
    t = i
    while t < b and not is_space(p[t]):
        t += 1
    score[0] = number(p, i, t)
    rest[0] = t
    return 0 if score[0] >= 0 else -1


cdef int name_ok(Text p, int64_t a, int64_t b, Rules* r, int side) noexcept nogil:
    """Whether the name a..b (or, empty, the header's or the default) passes _check_name."""
    cdef int64_t i
    if a == b:
        a, b = r.tag_a[4 + side], r.tag_b[4 + side]
        if a < 0:
            return 1
        strip(p, &a, &b)
        if a == b:
            return 1  # "Player N"
    for i in range(a, b):
        if p[i] == 9 or p[i] == 58:  # not printable (letters past ASCII: the Python side), or ':'
            return 0
    return 1


cdef int read_names(Src* s, int64_t* pos, Rules* r, int64_t* s0, int64_t* s1) noexcept nogil:
    """The names and scores after a game line (_parse_scores): OK or a reason."""
    cdef Text p = s.p
    cdef int64_t a, b, na0, nb0, na1, nb1, rest, a2, b2
    while True:  # blank lines skipped
        if not next_line(s, pos, &a, &b):
            return R_GAME_LINE
        if not blank(p, a, b):
            break
    if name_and_score(p, a, b, &na0, &nb0, s0, &rest) < 0:
        return R_GAME_LINE
    if not blank(p, rest, b):
        if name_and_score(p, rest, b, &na1, &nb1, s1, &rest) < 0 or not blank(p, rest, b):
            return R_GAME_LINE
    else:  # the two players on two lines
        if (not next_line(s, pos, &a2, &b2) or name_and_score(p, a2, b2, &na1, &nb1, s1, &rest) < 0
                or not blank(p, rest, b2)):
            return R_GAME_LINE
    if not name_ok(p, na0, nb0, r, 0) or not name_ok(p, na1, nb1, r, 1):
        return R_GAME_LINE
    return OK


# ---------------------------------------------------------------- move lines

cdef inline int token_at(Text p, int64_t k, int64_t la, int64_t b) noexcept nogil:
    """Length of the entry start (_ENTRY_START_RE, its alternatives in order) at k of the
    line la..b, or 0."""
    cdef unsigned char c = lower(p[k])
    cdef int m
    if is_digit(c):
        return 3 if k + 2 < b and is_digit(p[k + 1]) and p[k + 2] == 58 else 0
    if c == 100:  # d
        m = starts_ci(p, k, b, b"doubles")
        return m if m else starts_ci(p, k, b, b"drops")
    if c == 98:
        return starts_ci(p, k, b, b"beavers")
    if c == 114:  # r
        m = starts_ci(p, k, b, b"raccoons")
        if not m:
            m = starts_ci(p, k, b, b"rejects")
        return m if m else starts_ci(p, k, b, b"resigns")
    if c == 116:
        return starts_ci(p, k, b, b"takes")
    if c == 97:
        return starts_ci(p, k, b, b"accepts")
    if c == 112:
        return starts_ci(p, k, b, b"passes")
    if c == 119:
        return starts_ci(p, k, b, b"wins")
    if c == 108:  # l: Losses before Loses
        m = starts_ci(p, k, b, b"losses")
        return m if m else starts_ci(p, k, b, b"loses")
    if c == 99:
        return starts_ci(p, k, b, b"concedes")
    if c == 63:  # (?<!: )(?<!:)[?]{4}: not right after a roll's colon
        if k + 3 < b and p[k + 1] == 63 and p[k + 2] == 63 and p[k + 3] == 63:
            if (k - 1 >= la and p[k - 1] == 58) or (k - 2 >= la and p[k - 2] == 58 and p[k - 1] == 32):
                return 0
            return 4
    return 0


cdef inline int result_word(Text p, int64_t a, int64_t b) noexcept nogil:
    """Whether the entry's first four letters are one of _RESULT_WORDS."""
    cdef unsigned char c = lower(p[a])
    if c == 119:
        return starts_ci(p, a, b, b"wins") != 0
    if c == 108:
        return starts_ci(p, a, b, b"lose") != 0 or starts_ci(p, a, b, b"loss") != 0
    if c == 99:
        return starts_ci(p, a, b, b"conc") != 0
    if c == 114:
        return starts_ci(p, a, b, b"resi") != 0
    return 0


cdef int split_entries(Sink* s, Text p, int64_t la, int64_t lb, int nonascii) noexcept nogil:
    """The column entries of one move line (_split_entries), appended to s.entries. A
    line with a byte past ASCII is left to the reader: its entries stand at columns
    counted in characters, not bytes."""
    cdef int64_t i = la, j, offset, k, e, t, u
    cdef int64_t starts[4]
    cdef int count = 0, column = -1, m, idx, by_place
    cdef uint64_t x
    cdef Entry* out
    if nonascii:
        for k in range(la, lb):
            if p[k] >= 128:
                return R_BYTES
    while i < lb and p[i] == 32:
        i += 1
    j = i
    while j < lb and is_digit(p[j]):
        j += 1
    if j > i and j - i <= 6 and j < lb and p[j] == 41:  # ' *[0-9]{1,6}\)'
        offset = j + 1
        if blank(p, offset, lb):
            return OK
    else:
        offset = la
    k = offset
    last = offset  # the end of the last entry start: the regular expression's matches do not overlap
    while k < lb:
        if k + 8 <= lb:
            # eight bytes at a time to the first one that is ':' or above (digits, '/',
            # spaces ... start nothing): the bytes are below 0x80 here, so adding 0x46 to
            # each sets its top bit exactly when it is 0x3A or more, with no carry out
            x = (fg_load8(<const int8_t*> (p + k)) + 0x4646464646464646u) & 0x8080808080808080u
            if x == 0:
                k += 8
                continue
            k += FIRST8[(x * 0x0002040810204081u) >> 56]  # byte j's top bit to bit j
        if not TOKEN[p[k]]:
            k += 1
            continue
        if p[k] == 58:  # a roll "d1d2:" ends here (no other start can hold its digits)
            if k - 2 >= last and is_digit(p[k - 2]) and is_digit(p[k - 1]):
                if count == 4:
                    return R_LINE
                starts[count] = k - 2
                count += 1
                last = k + 1
            k += 1
            continue
        m = token_at(p, k, la, lb)
        if m:
            if count == 4:
                return R_LINE
            starts[count] = k
            count += 1
            k += m
            last = k
            continue
        k += 1
    if count == 0 or count > 3 or not blank(p, offset, starts[0]):
        return R_LINE
    for idx in range(count):
        k = starts[idx]
        e = starts[idx + 1] if idx + 1 < count else lb
        t = e  # the spaces at the end, then a move number glued there (_GLUED_NUMBER_RE)
        while t - 8 >= k and fg_load8(<const int8_t*> (p + t - 8)) == SPACES8:
            t -= 8
        while t > k and p[t - 1] == 32:
            t -= 1
        e = t
        if t > k and p[t - 1] == 41:
            u = t - 1
            while u > k and is_digit(p[u - 1]):
                u -= 1
            if 1 <= t - 1 - u <= 4 and u - 1 >= k and p[u - 1] == 32:
                e = u - 1
        while e > k and is_space(p[e - 1]):
            e -= 1
        by_place = 1 if k - la >= 20 else 0
        if result_word(p, k, e):
            column = by_place
        else:
            column = by_place if column < 0 else column + 1
            if column > 1 or idx == 2:
                return R_LINE
        out = <Entry*> buf_add(&s.entries, 1)
        if out == NULL:
            return R_MEMORY
        out.a = k
        out.b = e
        out.column = column
    return OK
