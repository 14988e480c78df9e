# cython: language_level=3
"""Compiled fast path of the ``.mat`` reader: scans text match files and replays their
games without Python objects (private; :mod:`fastgen.formats.matbatch` drives it).

It reads the bytes of each file as :func:`fastgen.formats.matfile.read_mat` reads the
text: the header (tags, the ``N point match`` line), then each game (its number, the
players' names and scores, then the column entries of its move lines: rolls and plays,
cube actions, ``Wins``/``Losses`` lines, ``????`` marks), and replays every entry by the
reader's rules (R16-R20 as :class:`fastgen.games.game.Game` applies them): the opening
roll's starter, the cube (owner, cap, the Crawford game), plays read as the reader reads
move text (bar and off as 25 and 0, chains, repeats, every landing hitting a lone
opposing checker, the legal play with the same checkers of the mover, then the same
board), bear-offs ending a game, drops and resignations.

It handles only what it can handle exactly as the reader does, and gives up on a file at
anything else (a control character, a move line past ASCII, a line or value it does not
read the same way, Concedes, beavers, any error the reader would raise ...): the file's
status then says why, and the Python reader reads that file. A play is found without the
generator when its written steps are legal one after the other and use all the dice
(the position they make is then the legal play the reader finds); otherwise the move
generator (fastgen/core/_core.pxd) lists the legal plays and the reader's matching is
done on them.

Its text side (reading a file, lines, the header, names and scores, splitting move lines
into column entries) is in _matscan_text.pxi, included here; the replay is here.

Output: growable C arrays, handed to numpy without a copy (:meth:`Scanner.take`): a row
a file, a row a game (its state at the end and where its actions are), a row an action
(kind, player, two small values) and, per play, the board after it (the mover's view)
and the dice; and the head of each file read (its lines up to the first game's names).
"""

from libc.stdint cimport int8_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, realloc
from libc.string cimport memchr, memcmp, memcpy, memset
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cython.view cimport array as cvarray

from fastgen.core._core cimport BOARD_BYTES, OWN, Ctx, ctx_free, ctx_new, generate
from fastgen.core._bits cimport fg_load8  # an unaligned 8-byte load (fastgen/core/_platform.h)

import numpy as np

ctypedef const unsigned char* Text

cdef uint64_t SPACES8 = 0x2020202020202020   # eight spaces, as one 8-byte load reads them

# action kinds (GameAction.kind, in this order: KINDS)
cdef enum:
    K_OPENING = 0
    K_ROLL = 1
    K_PLAY = 2
    K_DOUBLE = 3    # its value: log2 of the cube offered
    K_TAKE = 4
    K_DROP = 5
    K_RESIGN = 6    # its value: the result type offered
    K_ACCEPT = 7

KINDS = ("opening", "roll", "play", "double", "take", "drop", "resign", "accept")

# a file's status: 0 read here, else why the Python reader reads it (REASONS)
cdef enum:
    OK = 0
    R_BYTES = 1
    R_HEADER = 2
    R_NO_GAME = 3
    R_GAME_LINE = 4
    R_LINE = 5
    R_ENTRY = 6
    R_ACTION = 7
    R_PLAY = 8
    R_RESULT = 9
    R_SCORE = 10
    R_MEMORY = 11
    R_READ = 12

REASONS = (
    "read by the scanner",
    "a NUL or another control character, or a move line with a byte past ASCII",
    "a header the scanner does not read as the reader does",
    "no game",
    "a game line, or its players' names and scores",
    "a move line the reader refuses",
    "an entry the scanner leaves to the reader (Concedes, beavers, '????' where the game goes on ...)",
    "an action the game refuses (out of turn, out of order, the cube's rules)",
    "move text that fits no legal play, or several",
    "a result the replay contradicts",
    "a score the games before do not give, a game after the match's end, or a game left unfinished",
    "memory",
    "a file the scanner does not read (missing, not a regular file, too large, unreadable)",
)

# fields of a file row (int64)
cdef enum:
    F_STATUS = 0
    F_INDEX = 1
    F_FIRST_GAME = 2
    F_N_GAMES = 3
    F_LENGTH = 4
    F_CRAWFORD = 5
    F_JACOBY = 6
    F_CUBE_CAP = 7
    F_S0 = 8
    F_S1 = 9
    F_HEAD_END = 10     # the head: the file's lines up to the first game's names
    F_HEAD = 11         # where the head is kept (Scanner.take()["heads"])
    F_FLAGS = 12        # 1: bytes past ASCII (the whole file is kept), 2: a UTF-8 byte-order mark skipped
    F_KEPT = 13         # the bytes kept: the head, or the whole file (flag 1)
    F_FIELDS = 14

# fields of a game row (int64); actions and plays are the scanner's own indices
cdef enum:
    G_FILE = 0
    G_FIRST_ACTION = 1
    G_N_ACTIONS = 2
    G_FIRST_PLAY = 3
    G_N_PLAYS = 4
    G_S0 = 5
    G_S1 = 6
    G_WINNER = 7
    G_RESULT = 8
    G_POINTS = 9
    G_CUBE = 10
    G_OWNER = 11
    G_CRAWFORD = 12
    G_DROPPED = 13
    G_RESIGNED = 14
    G_RESIGNER = 15
    G_PENDING = 16
    G_TURN = 17
    G_D1 = 18
    G_D2 = 19
    G_TURNS = 20
    G_FIELDS = 21

FILE_FIELDS = ("status", "index", "first_game", "n_games", "length", "crawford", "jacoby", "cube_cap", "s0", "s1",
               "head_end", "head", "flags", "kept")
GAME_FIELDS = ("file", "first_action", "n_actions", "first_play", "n_plays", "s0", "s1", "winner", "result",
               "points", "cube", "owner", "crawford", "dropped", "resigned", "resigner", "pending", "turn", "d1",
               "d2", "turns")

# 1: a byte where an entry start is looked for: the first letter of a word of
# _ENTRY_START_RE, '?', and ':' (a roll "d1d2:" is found from its colon)
cdef uint8_t TOKEN[256]
cdef uint8_t FIRST8[256]  # the lowest set bit of a byte (8 for none)
cdef int8_t START[50]    # the starting position (fastgen.core.boards.STARTING_BOARD)
cdef int _i
for _i in range(256):
    FIRST8[_i] = next((j for j in range(8) if _i >> j & 1), 8)
    TOKEN[_i] = _i == 58 or _i == 63 or chr(_i | 0x20) in "dbrtapwlc" and (65 <= _i <= 90 or 97 <= _i <= 122)


def set_start(const int8_t[::1] board):
    """Take the starting position (50 int8, from fastgen.core.boards)."""
    memcpy(START, &board[0], BOARD_BYTES)


# ---------------------------------------------------------------- growable arrays

ctypedef struct Buf:
    char* p
    int64_t n       # items
    int64_t cap
    int64_t size    # bytes an item


cdef char* buf_add(Buf* b, int64_t k) noexcept nogil:
    """Room for k more items, returned (n advanced); NULL when memory is short."""
    cdef int64_t cap
    cdef char* q
    if b.n + k > b.cap:
        cap = b.cap * 2 + 256
        if cap < b.n + k:
            cap = b.n + k
        q = <char*> realloc(b.p, cap * b.size)
        if q == NULL:
            return NULL
        b.p = q
        b.cap = cap
    q = b.p + b.n * b.size
    b.n += k
    return q


cdef int buf_reserve(Buf* b, int64_t k) noexcept nogil:
    """Room for k more items without growing again; -1 when memory is short."""
    if k <= 0 or b.n + k <= b.cap:
        return 0
    if buf_add(b, k) == NULL:
        return -1
    b.n -= k
    return 0


ctypedef struct Entry:
    int64_t a       # the entry's text, stripped: bytes a..b of the file
    int64_t b
    int column


ctypedef struct Sink:
    Buf files       # int64 x F_FIELDS
    Buf games       # int64 x G_FIELDS
    Buf ends        # 50 int8 a game: its board at the end (Game._board)
    Buf actions     # int8 x 4: kind, player, value, value
    Buf after       # 50 int8 a play
    Buf dice        # 2 int8 a play: the dice it plays (Game.dice)
    Buf entries     # Entry: one game's, while it is read
    Buf heads       # bytes: the head of each file read
    Ctx* ctx
    int64_t generated   # plays found with the generator (the others: by their steps)


ctypedef struct Src:
    Text p
    int64_t n
    int cr          # the file holds a carriage return
    int nonascii    # ... a byte past ASCII


ctypedef struct Rules:
    int64_t length
    int64_t cube_cap
    int crawford    # the Crawford rule (match play)
    int jacoby
    int64_t tag_a[6]    # values of the tags variation, cubelimit, crawford, jacoby,
    int64_t tag_b[6]    # player 1, player 2 (the last of each), -1 when absent


ctypedef struct GState:
    int8_t board[50]
    int turn        # -1 before the opening roll
    int d1
    int d2          # 0, 0: no dice
    int64_t cube
    int owner       # -1: centred
    int pending
    int winner      # -1 while playing
    int result
    int64_t points
    int dropped
    int resigned
    int resigner
    int crawford
    int turns


include "_matscan_text.pxi"


# ---------------------------------------------------------------- replay

cdef inline int record(Sink* s, int kind, int player, int v1, int v2) noexcept nogil:
    cdef int8_t* row = <int8_t*> buf_add(&s.actions, 1)
    if row == NULL:
        return R_MEMORY
    row[0] = <int8_t> kind
    row[1] = <int8_t> player
    row[2] = <int8_t> v1
    row[3] = <int8_t> v2
    return OK


cdef void finish(GState* g, int winner, int result, int jacoby) noexcept nogil:
    g.winner = winner
    g.result = result
    if g.dropped or (jacoby and g.cube == 1):
        g.points = g.cube
    else:
        g.points = result * g.cube


cdef int play_board(Sink* s, GState* g, const int8_t* after, int jacoby) noexcept nogil:
    """Record the play of the side on roll ending on *after* and move on (Game.play)."""
    cdef char* ab = buf_add(&s.after, 1)
    cdef char* db = buf_add(&s.dice, 1)
    cdef int i, left = 0, loser = 0, result
    if ab == NULL or db == NULL or record(s, K_PLAY, g.turn, 0, 0) != OK:
        return R_MEMORY
    memcpy(ab, after, BOARD_BYTES)
    db[0] = <char> g.d1
    db[1] = <char> g.d2
    g.turns += 1
    g.d1 = g.d2 = 0
    for i in range(25):
        left |= after[OWN + i]
    if left == 0:  # R17: the mover bore off its last checker
        memcpy(g.board, after, BOARD_BYTES)
        for i in range(25):
            loser += after[i]
        result = 1
        if loser == 15:
            result = 2
            for i in range(18, 25):
                if after[i]:
                    result = 3
        finish(g, g.turn, result, jacoby)
        return OK
    memcpy(g.board, after + OWN, 25)
    memcpy(g.board + OWN, after, 25)
    g.turn = 1 - g.turn
    return OK


cdef int read_play(Sink* s, GState* g, Text p, int64_t a, int64_t b, int8_t* out) noexcept nogil:
    """The board after the play that the move text a..b describes (match_play_text)."""
    cdef int8_t* opp = out
    cdef int8_t* mine = out + OWN
    cdef int points[5]
    cdef int left[7]
    cdef int tokens = 0, n_points, i, j, rep, src, dst, si, die, steps = 0, need, fast = 1, outside, v
    cdef int64_t k, nplays, found, exact, pick
    cdef const int8_t* cand
    memcpy(out, g.board, BOARD_BYTES)
    memset(left, 0, sizeof(left))
    if g.d1 == g.d2:
        left[g.d1] = 4
        need = 4
    else:
        left[g.d1] = 1
        left[g.d2] = 1
        need = 2
    k = a
    while True:  # one pass over the text: moves parted by spaces or commas
        while k < b and (is_space(p[k]) or p[k] == 44):
            k += 1
        if k >= b:
            break
        tokens += 1
        if tokens > 4:
            return R_PLAY
        n_points = 0
        while True:  # the points of a move (_POINT_RE), '/' between them
            if n_points == 5 or k >= b:
                return R_PLAY
            if is_digit(p[k]):
                v = p[k] - 48
                k += 1
                if k < b and is_digit(p[k]):
                    v = v * 10 + p[k] - 48
                    k += 1
                    if v > 25:
                        return R_PLAY
            elif starts_ci(p, k, b, b"bar"):
                v = 25
                k += 3
            elif starts_ci(p, k, b, b"off"):
                v = 0
                k += 3
            else:
                return R_PLAY
            if k < b and p[k] == 42:  # '*'
                k += 1
            points[n_points] = v
            n_points += 1
            if k < b and p[k] == 47:  # '/'
                k += 1
                continue
            break
        rep = 1  # a repeat: (1) to (4) at the end of the move (_REPEAT_RE)
        if k + 2 < b and p[k] == 40 and 49 <= p[k + 1] <= 52 and p[k + 2] == 41:
            rep = p[k + 1] - 48
            k += 3
        if k < b and not (is_space(p[k]) or p[k] == 44):
            return R_PLAY
        if n_points < 2 or points[0] == 0:
            return R_PLAY
        for i in range(1, n_points):
            if points[i] == 25 or (points[i] == 0 and i < n_points - 1):
                return R_PLAY
        for _ in range(rep):
            for i in range(n_points - 1):
                src = points[i]
                dst = points[i + 1]
                si = 24 if src == 25 else src - 1
                if fast:  # is this step legal here, with a die left (R6-R10)?
                    die = src - dst
                    if steps >= need or (mine[24] > 0 and src != 25) or mine[si] <= 0:
                        fast = 0
                    elif dst > 0:
                        fast = 1 <= die <= 6 and left[die] > 0 and opp[24 - dst] <= 1
                    else:  # bearing off: every checker home, the exact die or a higher one
                        outside = 0
                        for j in range(6, 25):
                            outside |= mine[j]
                        if outside:
                            fast = 0
                        elif not (die <= 6 and left[die] > 0):
                            for j in range(src, 6):
                                outside |= mine[j]
                            die = 0
                            if not outside:
                                for j in range(src + 1, 7):
                                    if left[j] > 0:
                                        die = j
                                        break
                            fast = die > 0
                    if fast:
                        left[die] -= 1
                        steps += 1
                mine[si] -= 1
                if dst:
                    mine[dst - 1] += 1
                    if opp[24 - dst] == 1:
                        opp[24 - dst] = 0
                        opp[24] += 1
    if fast and steps == need:  # legal step by step with every die: the play itself
        return OK
    # the legal plays, matched as the reader matches them
    s.generated += 1
    s.ctx.n = 0
    nplays = generate(s.ctx, g.board, g.d1, g.d2)
    if nplays < 0:
        return R_MEMORY
    found = 0
    pick = -1
    for k in range(nplays):
        cand = s.ctx.boards + (s.ctx.base + k) * BOARD_BYTES
        if memcmp(cand + OWN, mine, 25) == 0:
            found += 1
            pick = k
    if found > 1:
        exact = 0
        for k in range(nplays):
            cand = s.ctx.boards + (s.ctx.base + k) * BOARD_BYTES
            if memcmp(cand, out, BOARD_BYTES) == 0:
                exact += 1
                pick = k
        if exact:
            found = exact
    if found != 1:
        return R_PLAY
    memcpy(out, s.ctx.boards + (s.ctx.base + pick) * BOARD_BYTES, BOARD_BYTES)
    return OK


cdef int64_t legal_count(Sink* s, GState* g) noexcept nogil:
    """The number of legal plays of the roll (the context holds them), 0 when there is no
    legal move (R14: the one play is the lost turn), -1 when memory is short."""
    s.ctx.n = 0
    cdef int64_t nplays = generate(s.ctx, g.board, g.d1, g.d2)
    if nplays == 1 and memcmp(s.ctx.boards + s.ctx.base * BOARD_BYTES, g.board, BOARD_BYTES) == 0:
        return 0
    return nplays


cdef int resign(Sink* s, GState* g, int winner, int64_t points, int jacoby) noexcept nogil:
    """The loser's resignation of *points* and its acceptance (matfile's _resign)."""
    cdef int64_t cube = g.cube, result
    if jacoby and cube == 1 and points == 1:
        result = 1
    elif points % cube == 0 and 1 <= points // cube <= 3:
        result = points // cube
    else:
        result = (points + cube - 1) // cube
        result = 3 if result > 3 else 1 if result < 1 else result
    if g.pending:
        return R_ACTION
    if record(s, K_RESIGN, 1 - winner, <int> result, 0) != OK or record(s, K_ACCEPT, winner, 0, 0) != OK:
        return R_MEMORY
    g.resigned = 1
    g.resigner = 1 - winner
    finish(g, winner, <int> result, jacoby)
    return OK


cdef inline int64_t after_word(Text p, int64_t i, int64_t b, const char* word) noexcept nogil:
    """Past ' +word' at i, or -1 (and -1 once it is)."""
    cdef int m
    if i < 0 or i >= b or p[i] != 32:
        return -1
    while i < b and p[i] == 32:
        i += 1
    m = starts_ci(p, i, b, word)
    return i + m if m else -1


cdef inline int ends_game(Text p, Entry* following) noexcept nogil:
    """Whether nothing follows in the game, or its result (_unrolled)."""
    return following == NULL or result_word(p, following.a, following.b)


cdef int apply_roll(Sink* s, GState* g, Text p, int64_t a, int64_t b, int player, Entry* following,
                    Rules* r) noexcept nogil:
    """A roll and its play (``d1d2: moves``): _apply_entry's roll branch."""
    cdef int d1 = p[a] - 48, d2 = p[a + 1] - 48, hi, lo, marks
    cdef int64_t ma = a + 3, mb = b, count
    cdef int8_t after[50]
    strip(p, &ma, &mb)
    marks = memchr(p + ma, 63, mb - ma) != NULL  # '?' in the play
    if d1 == 0 and d2 == 0 and only(p, ma, mb, 63, 63) and ends_game(p, following):
        return OK  # one site's "00: ????" for a roll never made
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        return R_ENTRY
    if g.winner >= 0:
        return R_ACTION
    if g.turn < 0:  # the opening roll: the starter's die is the higher one (R16)
        if d1 == d2:
            return R_ENTRY
        hi, lo = (d1, d2) if d1 > d2 else (d2, d1)
        if record(s, K_OPENING, player, hi if player == 0 else lo, lo if player == 0 else hi) != OK:
            return R_MEMORY
        g.turn = player
        g.d1 = hi
        g.d2 = lo
    else:
        if g.pending or g.d1 or player != g.turn:
            return R_ACTION
        if record(s, K_ROLL, player, d1, d2) != OK:
            return R_MEMORY
        g.d1 = d1
        g.d2 = d2
    if ma == mb or (not is_digit(p[ma]) and (
            eq_ci(p, ma, mb, b"-") or eq_ci(p, ma, mb, b"cannot move") or eq_ci(p, ma, mb, b"can't move")
            or eq_ci(p, ma, mb, b"no move") or eq_ci(p, ma, mb, b"dances"))):
        count = legal_count(s, g)
        if count < 0:
            return R_MEMORY
        if count == 0:  # a lost turn, played
            memcpy(after, g.board, BOARD_BYTES)
            return play_board(s, g, after, r.jacoby)
        return OK if ends_game(p, following) else R_PLAY  # left unplayed: the game ends there
    if marks:
        if not only(p, ma, mb, 63, 63):
            return R_PLAY
        # one site's mark for a play it lost: a forced play is played, else the roll is left
        count = legal_count(s, g)
        if count < 0:
            return R_MEMORY
        if count <= 1:
            memcpy(after, s.ctx.boards + s.ctx.base * BOARD_BYTES, BOARD_BYTES)
            return play_board(s, g, after, r.jacoby)
        return OK if ends_game(p, following) else R_PLAY
    count = read_play(s, g, p, ma, mb, after)
    if count != OK:
        return <int> count
    return play_board(s, g, after, r.jacoby)


cdef int apply_entry(Sink* s, GState* g, Text p, Entry* e, Entry* following, Rules* r, int64_t need0,
                     int64_t need1, int wins_follows) noexcept nogil:
    """One column entry (_apply_entry): OK, or why the file is left to the reader."""
    cdef int64_t a = e.a, b = e.b, w, i, points
    cdef int player = e.column, winner, responder
    if b - a >= 3 and is_digit(p[a]) and is_digit(p[a + 1]) and p[a + 2] == 58:
        return apply_roll(s, g, p, a, b, player, following, r)
    if only(p, a, b, 63, 32):  # only '?' and spaces: a site's mark for a lost action
        return OK if ends_game(p, following) else R_ENTRY
    if memchr(p + a, 63, b - a) != NULL:
        return R_ENTRY
    w = a
    while w < b and not is_space(p[w]):
        w += 1
    if eq_ci(p, a, w, b"wins") or eq_ci(p, a, w, b"loses") or eq_ci(p, a, w, b"losses"):
        # _WINS_RE: (Wins|Loses|Losses) +([0-9]{1,6}) +points?( +and +the +match)? *
        i = w
        if i >= b or p[i] != 32:
            return R_RESULT
        while i < b and p[i] == 32:
            i += 1
        points = i
        while i < b and is_digit(p[i]):
            i += 1
        points = number(p, points, i)
        if points < 0 or i >= b or p[i] != 32:
            return R_RESULT
        while i < b and p[i] == 32:
            i += 1
        if not starts_ci(p, i, b, b"point"):
            return R_RESULT
        i += 5
        if i < b and lower(p[i]) == 115:
            i += 1
        if i < b:  # " and the match"
            i = after_word(p, i, b, b"and")
            i = after_word(p, i, b, b"the")
            i = after_word(p, i, b, b"match")
            if i != b:
                return R_RESULT
        if w - a != 4 and wins_follows:
            return OK  # the Wins line decides
        winner = player if w - a == 4 else 1 - player
        if g.winner < 0:
            return resign(s, g, winner, points, r.jacoby)
        if g.winner != winner:
            return R_RESULT
        if g.points != points and not (r.length > 0 and (need1 if winner else need0) <= points < g.points):
            return R_RESULT
        return OK
    if eq_ci(p, a, w, b"doubles"):
        if (g.winner >= 0 or g.turn < 0 or player != g.turn or g.pending or g.d1 or g.crawford
                or (g.owner >= 0 and g.owner != g.turn) or g.cube * 2 > r.cube_cap):
            return R_ACTION
        g.pending = 1
        i = 0
        while (2 << i) < g.cube * 2:
            i += 1
        return record(s, K_DOUBLE, g.turn, <int> i + 1, 0)
    if (eq_ci(p, a, w, b"takes") or eq_ci(p, a, w, b"accepts") or eq_ci(p, a, w, b"drops")
            or eq_ci(p, a, w, b"passes") or eq_ci(p, a, w, b"rejects")):
        if g.winner >= 0 or not g.pending or player != 1 - g.turn:
            return R_ACTION
        responder = 1 - g.turn
        g.pending = 0
        if lower(p[a]) == 116 or lower(p[a]) == 97:  # takes, accepts
            g.cube *= 2
            g.owner = responder
            return record(s, K_TAKE, responder, 0, 0)
        g.dropped = 1
        finish(g, g.turn, 1, r.jacoby)
        return record(s, K_DROP, responder, 0, 0)
    return R_ENTRY  # beavers, concedes, resigns, unknown words


cdef int replay(Sink* s, Text p, Rules* r, int64_t* score, int* crawford_seen, int64_t h0, int64_t h1,
                int64_t file_index) noexcept nogil:
    """Replay the game whose entries s.entries holds into a game row (_read_game)."""
    cdef GState g
    cdef Entry* es = <Entry*> s.entries.p
    cdef int64_t n = s.entries.n, k, last_wins = -1, first_action = s.actions.n, first_play = s.after.n
    cdef int64_t* row
    cdef int got
    cdef int8_t* end
    if score[0] != h0 or score[1] != h1:
        return R_SCORE
    if r.length > 0 and (score[0] >= r.length or score[1] >= r.length):
        return R_SCORE  # the match is over
    memset(&g, 0, sizeof(GState))
    memcpy(g.board, START, BOARD_BYTES)
    g.turn = -1
    g.cube = 1
    g.owner = -1
    g.winner = -1
    g.resigner = -1
    g.crawford = (r.crawford and not crawford_seen[0]
                  and (score[0] == r.length - 1) != (score[1] == r.length - 1))
    if g.crawford:
        crawford_seen[0] = 1
    for k in range(n):
        if starts_ci(p, es[k].a, es[k].b, b"wins"):
            last_wins = k
    for k in range(n):
        got = apply_entry(s, &g, p, &es[k], &es[k + 1] if k + 1 < n else NULL, r,
                          r.length - score[0], r.length - score[1], k < last_wins)
        if got != OK:
            return got
    row = <int64_t*> buf_add(&s.games, 1)
    end = <int8_t*> buf_add(&s.ends, 1)
    if row == NULL or end == NULL:
        return R_MEMORY
    memcpy(end, g.board, BOARD_BYTES)
    row[G_FILE] = file_index
    row[G_FIRST_ACTION] = first_action
    row[G_N_ACTIONS] = s.actions.n - first_action
    row[G_FIRST_PLAY] = first_play
    row[G_N_PLAYS] = s.after.n - first_play
    row[G_S0] = score[0]
    row[G_S1] = score[1]
    row[G_WINNER] = g.winner
    row[G_RESULT] = g.result
    row[G_POINTS] = g.points
    row[G_CUBE] = g.cube
    row[G_OWNER] = g.owner
    row[G_CRAWFORD] = g.crawford
    row[G_DROPPED] = g.dropped
    row[G_RESIGNED] = g.resigned
    row[G_RESIGNER] = g.resigner
    row[G_PENDING] = g.pending
    row[G_TURN] = g.turn
    row[G_D1] = g.d1
    row[G_D2] = g.d2
    row[G_TURNS] = g.turns
    if g.winner >= 0:
        score[g.winner] += g.points
    return OK


cdef int scan_games(Sink* s, Src* src, int64_t* file_row) noexcept nogil:
    """Header and games of one file into s: OK, or why the Python reader must read it."""
    cdef Text p = src.p
    cdef Rules r
    cdef int64_t pos = 0, num_a, num_b, a, b, la, lb, h0, h1
    cdef int64_t w[6]
    cdef int64_t score[2]
    cdef int got, crawford_seen = 0, more = 1, games = 0, last_over = 1
    if odd_bytes(src):
        return R_BYTES
    file_row[F_FLAGS] = src.nonascii
    if src.n >= 3 and p[0] == 0xEF and p[1] == 0xBB and p[2] == 0xBF:  # read as UTF-8 (checked in Python)
        pos = 3
        file_row[F_FLAGS] |= 2
    got = read_header(src, &r, &pos, &num_a, &num_b)
    if got != OK:
        return got
    file_row[F_LENGTH] = r.length
    file_row[F_CRAWFORD] = r.crawford
    file_row[F_JACOBY] = r.jacoby
    file_row[F_CUBE_CAP] = r.cube_cap
    while more:
        if number(p, num_a, num_b) < 0:
            return R_GAME_LINE
        got = read_names(src, &pos, &r, &h0, &h1)
        if got != OK:
            return got
        if games == 0:
            if r.length > 0 and (h0 >= r.length or h1 >= r.length):
                return R_SCORE  # Match refuses such a start score
            score[0] = h0
            score[1] = h1
            file_row[F_S0] = h0
            file_row[F_S1] = h1
            file_row[F_HEAD_END] = pos
        elif not last_over:
            return R_SCORE  # a game before the last one left unfinished
        s.entries.n = 0
        more = 0
        while next_line(src, &pos, &la, &lb):
            a = la
            b = lb
            strip(p, &a, &b)
            if a == b or p[a] == 59 or p[a] == 35:  # blank lines, and comments anywhere
                continue
            if game_line(p, a, b, w):
                num_a = w[2]
                num_b = w[3]
                more = 1
                break
            got = split_entries(s, p, la, lb, src.nonascii)
            if got != OK:
                return got
        got = replay(s, p, &r, score, &crawford_seen, h0, h1, file_row[F_INDEX])
        if got != OK:
            return got
        last_over = (<int64_t*> s.games.p)[(s.games.n - 1) * G_FIELDS + G_WINNER] >= 0
        games += 1
    return OK


cdef void scan_one(Sink* s, Text p, int64_t n, int64_t index) noexcept nogil:
    """One file: its row, and its games, actions and plays unless it is left to the reader."""
    cdef int64_t games = s.games.n, actions = s.actions.n, plays = s.after.n
    cdef int64_t* row = <int64_t*> buf_add(&s.files, 1)  # room reserved by Scanner.scan
    cdef int status
    cdef char* head
    cdef Src src
    src.p = p
    src.n = n
    src.cr = 0
    src.nonascii = 0
    memset(row, 0, F_FIELDS * sizeof(int64_t))
    row[F_INDEX] = index
    row[F_FIRST_GAME] = games
    status = scan_games(s, &src, row) if n >= 0 else R_READ
    if status == OK:  # its head, for the header's reading in Python (the whole file past ASCII)
        row[F_KEPT] = n if row[F_FLAGS] & 1 else row[F_HEAD_END]
        head = buf_add(&s.heads, row[F_KEPT])
        if head == NULL:
            status = R_MEMORY
        else:
            row[F_HEAD] = s.heads.n - row[F_KEPT]
            memcpy(head, p, row[F_KEPT])
    if status != OK:  # nothing of it kept
        s.games.n = s.ends.n = games
        s.actions.n = actions
        s.after.n = s.dice.n = plays
    row[F_STATUS] = status
    row[F_N_GAMES] = s.games.n - games


cdef object _array(Buf* b, dtype, tuple shape):
    """The buffer as a numpy array that owns it (no copy); the buffer is left empty."""
    cdef cvarray a
    if b.n == 0:
        return np.zeros((0,) + shape[1:], dtype=dtype)
    a = cvarray(shape=(b.n * b.size,), itemsize=1, format="B", mode="c", allocate_buffer=False)
    a.data = b.p
    a.callback_free_data = free
    b.p = NULL
    b.n = b.cap = 0
    return np.asarray(a).view(dtype).reshape(shape)


cdef class Scanner:
    """Scans files into growable arrays; one scanner is used by one thread at a time.

    A file with bytes past ASCII (UTF-8 or Latin-1 letters) is read when they stand only
    in its header's tags and comments, comment lines and players' names: each is then
    taken as a printable character that is not a space, as the Python reader takes it
    when the file's text holds no other; the caller must check that on the decoded text
    (the file is kept whole for it: flag 1), and that a byte-order mark skipped (flag 2)
    starts a UTF-8 file."""

    cdef Sink s

    def __cinit__(self):
        memset(&self.s, 0, sizeof(Sink))
        self.s.files.size = F_FIELDS * sizeof(int64_t)
        self.s.games.size = G_FIELDS * sizeof(int64_t)
        self.s.ends.size = BOARD_BYTES
        self.s.actions.size = 4
        self.s.after.size = BOARD_BYTES
        self.s.dice.size = 2
        self.s.entries.size = sizeof(Entry)
        self.s.heads.size = 1
        self.s.ctx = ctx_new(0, 64)
        if self.s.ctx == NULL:
            raise MemoryError("no memory for the move generator's context")

    def __dealloc__(self):
        free(self.s.files.p)
        free(self.s.games.p)
        free(self.s.ends.p)
        free(self.s.actions.p)
        free(self.s.after.p)
        free(self.s.dice.p)
        free(self.s.entries.p)
        free(self.s.heads.p)
        ctx_free(self.s.ctx)

    def scan(self, list datas, int64_t first_index):
        """Scan each bytes object of *datas* (the file of index first_index + k), without
        the GIL; its rows are appended to this scanner's arrays."""
        cdef Py_ssize_t n = len(datas), k
        cdef Buf ptrs
        cdef Text* texts
        cdef int64_t* sizes
        cdef int64_t total = 0
        if n == 0:
            return
        memset(&ptrs, 0, sizeof(Buf))
        ptrs.size = sizeof(Text) + sizeof(int64_t)
        if buf_add(&ptrs, n) == NULL:
            raise MemoryError("no memory to scan match files")
        texts = <Text*> ptrs.p
        sizes = <int64_t*> (ptrs.p + n * sizeof(Text))
        for k in range(n):
            data = datas[k]
            if type(data) is not bytes:
                free(ptrs.p)
                raise TypeError(f"the scanner reads bytes, got {type(data).__name__}")
            texts[k] = <Text> PyBytes_AS_STRING(data)
            sizes[k] = PyBytes_GET_SIZE(data)
            total += sizes[k]
        # room for what such files hold (a play every 25 bytes, an action every 15, a
        # game every 1,000), so that the arrays seldom grow and copy
        if (buf_reserve(&self.s.files, n) or buf_reserve(&self.s.after, total // 25)
                or buf_reserve(&self.s.dice, total // 25) or buf_reserve(&self.s.actions, total // 15)
                or buf_reserve(&self.s.games, total // 1000) or buf_reserve(&self.s.ends, total // 1000)):
            free(ptrs.p)
            raise MemoryError("no memory to scan match files")
        try:
            with nogil:
                for k in range(n):
                    scan_one(&self.s, texts[k], sizes[k], first_index + k)
        finally:
            free(ptrs.p)

    def scan_paths(self, list paths, int64_t first_index, int64_t limit):
        """Read and scan each file of *paths* (bytes, the file system's encoding; the file of
        index first_index + k), without the GIL. Returns False when this platform has no
        reader here (the caller then reads the bytes and calls scan)."""
        cdef Py_ssize_t n = len(paths), k
        cdef Buf ptrs
        cdef const char** names
        cdef char* data = NULL
        cdef long long size
        cdef int status = 0
        if fg_read_file(b"", 0, &data) == -2:
            return False
        if n == 0:
            return True
        memset(&ptrs, 0, sizeof(Buf))
        ptrs.size = sizeof(const char*)
        if buf_add(&ptrs, n) == NULL or buf_reserve(&self.s.files, n):
            free(ptrs.p)
            raise MemoryError("no memory to scan match files")
        names = <const char**> ptrs.p
        for k in range(n):
            name = paths[k]
            if type(name) is not bytes:
                free(ptrs.p)
                raise TypeError(f"paths are bytes here, got {type(name).__name__}")
            names[k] = PyBytes_AS_STRING(name)  # a path holding a NUL is b"": not read here
        try:
            with nogil:
                for k in range(n):
                    data = NULL
                    size = fg_read_file(names[k], limit, &data)
                    if size >= 0 and self.s.after.cap - self.s.after.n < size // 25 + 1:
                        if (buf_reserve(&self.s.after, size // 25 + 1) or buf_reserve(&self.s.dice, size // 25 + 1)
                                or buf_reserve(&self.s.actions, size // 15 + 1)):
                            status = -1
                    scan_one(&self.s, <Text> data, size if size >= 0 else -1, first_index + k)
                    if size >= 0:
                        free(data)
                    if status:
                        break
        finally:
            free(ptrs.p)
        if status:
            raise MemoryError("no memory to scan match files")
        return True

    @property
    def generated(self) -> int:
        """Plays found with the move generator (the others were checked step by step)."""
        return self.s.generated

    def take(self) -> dict:
        """The arrays (numpy, owning the memory); the scanner starts empty again."""
        cdef Sink* s = &self.s
        return {
            "files": _array(&s.files, np.int64, (-1, F_FIELDS)),
            "games": _array(&s.games, np.int64, (-1, G_FIELDS)),
            "ends": _array(&s.ends, np.int8, (-1, 2, 25)),
            "actions": _array(&s.actions, np.int8, (-1, 4)),
            "after": _array(&s.after, np.int8, (-1, 2, 25)),
            "dice": _array(&s.dice, np.int8, (-1, 2)),
            "heads": _array(&s.heads, np.uint8, (-1,)),
        }
