"""Reading, checking and guiding a play against a position (docs/RULES.md R15).

:func:`parse_play` finds the legal play a move text describes (the text itself is read
by :func:`fastgen.core.notation.parse_move_text`); :func:`check_play` accepts exactly the legal plays (as returned by
``fastgen.legal_plays``) and rejects anything else with an
:class:`~fastgen.errors.IllegalPlayError` whose ``reason`` (an :class:`IllegalReason`)
names the rule broken and whose ``step`` is the offending ``(from, to)`` step.
:func:`legal_steps` lists the single steps that may come next so that the turn can still
end in a legal play; chaining it step by step reaches exactly the legal plays.

The set of legal plays always comes from the compiled core; the single-step replay of
:mod:`fastgen.core._replay` is used only to explain a rejection and to walk a turn.

>>> import fastgen
>>> check_play(fastgen.STARTING_BOARD, (3, 1), "8/5 6/5").moves
((8, 5), (6, 5))
>>> try:
...     check_play(fastgen.STARTING_BOARD, (6, 5), "24/18")
... except IllegalPlayError as exc:
...     exc.reason
<IllegalReason.MORE_DICE_POSSIBLE: 'a play using more of the dice exists, so it must be played (R11, R12)'>
>>> legal_steps(fastgen.STARTING_BOARD, (6, 5), [(24, 18)])
[(18, 13, 5), (13, 8, 5), (8, 3, 5)]
"""

from __future__ import annotations

import itertools

import numpy as np

from fastgen._util import as_list
from fastgen.core import _replay
from fastgen.core.boards import as_board, as_dice
from fastgen.errors import AmbiguousMoveError, IllegalPlayError, IllegalReason, InvalidMoveTextError
from fastgen.core.generate import legal_plays
from fastgen.core.notation import BAR, OFF, Play, format_play, parse_move_text, step_value
from fastgen.core.plays import Plays
from fastgen._typing import ArrayLike, DiceLike, StepsLike

__all__ = ["parse_play", "check_play", "legal_steps", "diagnose_moves"]


def _step_text(source: int, target: int) -> str:
    point = {0: "off", 25: "bar"}
    return f"{point.get(source, source)}/{point.get(target, target)}"


def _roll_text(dice) -> str:
    return f"{dice[0]}-{dice[1]}"


# --------------------------------------------------------------------------- replay


class _Attempt:
    """One way of replaying the proposed moves: how far it got and what stopped it."""

    __slots__ = ("steps", "hops", "mine", "opp", "dice_left", "reason", "bad_step", "detail")

    def __init__(self, steps, mine, opp, dice_left, reason=None, bad_step=None, detail="", hops=0):
        self.steps = steps
        self.hops = hops
        self.mine = mine
        self.opp = opp
        self.dice_left = dice_left
        self.reason = reason
        self.bad_step = bad_step
        self.detail = detail


def _replay_moves(mine, opp, dice_left, moves, steps=(), hops=0):
    """Yield every :class:`_Attempt` of playing *moves* (lists of points) in order.

    Each checker move is split into single-die steps in every way the unused dice allow;
    a move no split fits fails with DIE_NOT_IN_ROLL, a step a rule forbids with its reason.
    """
    if not moves:
        yield _Attempt(steps, mine, opp, dice_left, hops=hops)
        return
    points, rest = moves[0], moves[1:]
    source, target = points[0], points[1]
    landing_is_last = len(points) == 2
    splits = _replay.die_sequences(source, target, dice_left)
    if not splits:
        need = source - target if target else None
        detail = "no unused die or dice of the roll make " + (
            f"{need} pips" if need else "that move off the board"
        )
        yield _Attempt(steps, mine, opp, dice_left, IllegalReason.DIE_NOT_IN_ROLL, (source, target), detail, hops)
        return
    for split in splits:
        m, o, left, done = mine, opp, dice_left, steps
        position = source
        failed = None
        for n, die in enumerate(split):
            landing = _replay.target_of(position, die)
            intermediate = n < len(split) - 1 or not landing_is_last
            problem = _replay.step_problem(m, o, position, landing, die, intermediate)
            if problem is not None:
                failed = _Attempt(done, m, o, left, problem, (position, landing), hops=hops)
                break
            m, o = _replay.apply_step(m, o, position, landing)
            left = _replay.remove_die(left, die)
            done = done + ((position, landing),)
            position = landing
        if failed is not None:
            yield failed
            continue
        follow = rest if landing_is_last else (tuple(points[1:]),) + tuple(rest)
        yield from _replay_moves(m, o, left, tuple(follow), done, hops + 1)


def _final_problem(board, dice, attempt, plays):
    """Reason an attempt whose every step was legal still is not a legal play."""
    used = len(attempt.steps)
    most = max(len(_moves_of(plays, k)) for k in range(len(plays)))
    example = str(plays[0])
    if used < most:
        return IllegalReason.MORE_DICE_POSSIBLE, (
            f"{used} {'die' if used == 1 else 'dice'} played, but a play using {most} exists "
            f"(for example {example!r})"
        )
    d1, d2 = dice
    if d1 != d2 and most == 1:
        return IllegalReason.LARGER_DIE_REQUIRED, (
            f"only one die can be played, and then it must be the {max(d1, d2)} "
            f"(for example {example!r})"
        )
    return IllegalReason.MORE_DICE_POSSIBLE, f"for example {example!r} is legal"  # pragma: no cover


def _moves_of(plays, k):
    row = plays.moves[k]
    return [tuple(r) for r in row.tolist() if r[0] >= 0]


def _error(text, reason, step, detail):
    shown = f"{text!r}" if isinstance(text, str) else repr(text)
    where = f" at {_step_text(*step)}" if step is not None else ""
    message = f"illegal play {shown}{where}: {reason.rule}"
    if detail:
        message += f"; {detail}"
    return IllegalPlayError(message, reason, step)


def diagnose_moves(board, dice, moves, *, text=None, plays=None, keep_order=False):
    """Explain why *moves* (lists of points, as :func:`parse_move_text` gives) is illegal.

    Returns the legal :class:`Play` when the moves do form one after all, otherwise an
    :class:`IllegalPlayError` (returned, not raised) for the caller to raise. The moves are
    tried in every order unless *keep_order*; the explanation of the attempt that got
    furthest is kept.
    """
    arr = as_board(board)
    dice = as_dice(dice)
    if plays is None:
        plays = legal_plays(arr, dice)
    legal = {b.tobytes(): k for k, b in enumerate(plays.boards)}
    mine, opp = arr[1].tolist(), arr[0].tolist()
    point_lists = [tuple(points) for points, _ in moves]
    orders = [point_lists] if keep_order else list(dict.fromkeys(itertools.permutations(point_lists)))
    best = None
    best_rank = None
    for order in orders:
        for attempt in _replay_moves(mine, opp, _replay.roll_dice(dice), tuple(order)):
            if attempt.reason is None:
                after = np.array([attempt.opp, attempt.mine], dtype=np.int8)
                k = legal.get(after.tobytes())
                if k is not None:
                    return plays[k]
                reason, detail = _final_problem(arr, dice, attempt, plays)
                last = attempt.steps[-1] if attempt.steps else None
                if reason is IllegalReason.LARGER_DIE_REQUIRED:
                    last = attempt.steps[0]
                attempt.reason, attempt.bad_step, attempt.detail = reason, last, detail
                rank = (1, attempt.hops)
            else:
                rank = (0, attempt.hops)  # how many of the named moves were fine
            if best_rank is None or rank > best_rank:
                best, best_rank = attempt, rank
    if best is None:  # pragma: no cover - there is always at least one attempt
        return _error(text, IllegalReason.MORE_DICE_POSSIBLE, None, "")
    detail = best.detail or _detail_for(best, dice)
    shown = text if text is not None else [tuple(p) for p in point_lists]
    return _error(shown, best.reason, best.bad_step, detail)


def _detail_for(attempt, dice) -> str:
    source, target = attempt.bad_step
    reason = attempt.reason
    step = _step_text(source, target)
    if reason is IllegalReason.BAR_FIRST:
        return f"{step} moves another checker while one of yours is on the bar"
    if reason is IllegalReason.NO_CHECKER:
        where = "the bar" if source == 25 else f"point {source}"
        return f"you have no checker on {where}"
    if reason is IllegalReason.LANDING_BLOCKED:
        return f"point {target} holds two or more opposing checkers"
    if reason is IllegalReason.INTERMEDIATE_BLOCKED:
        return f"the checker would stop on point {target}, which holds two or more opposing checkers"
    if reason is IllegalReason.BEAROFF_NOT_ALLOWED:
        return "not all your checkers are in your home board yet"
    if reason is IllegalReason.BEAROFF_HIGHER_OCCUPIED:
        return f"a checker still stands above point {source}"
    return f"with the roll {_roll_text(dice)}"  # pragma: no cover


# --------------------------------------------------------------------------- parse_play


def _hits(before: np.ndarray, after: np.ndarray) -> set:
    """Mover's points where a lone opposing checker was hit between two boards."""
    hit = (before[0, :24] == 1) & (after[0, :24] == 0)
    return {24 - int(i) for i in np.flatnonzero(hit)}


def _chain_steps(points: tuple[int, ...], roll: tuple[int, ...]) -> list[list[tuple[int, int, int]]]:
    """Every way to cut one checker's named stops into single-die steps.

    Returns lists of ``(source, landing, die)``; the dice of each hop come from *roll*
    (their multiset is checked when the steps are played)."""
    options: list[list[tuple[int, int, int]]] = [[]]
    for source, target in zip(points, points[1:]):
        grown: list[list[tuple[int, int, int]]] = []
        for split in _replay.die_sequences(source, target, roll):
            steps, position = [], source
            for die in split:
                landing = _replay.target_of(position, die)
                steps.append((position, landing, die))
                position = landing
            grown.extend(done + steps for done in options)
        options = grown
    return options


def _reached(board: np.ndarray, dice, moves: list) -> set:
    """The positions (bytes) that playing *moves* as written reaches, step by legal step.

    Every point the text names is a stop: each hop between two named points is made
    with one or more unused dice, every split of a hop into dice is tried, and the steps
    of different checkers may interleave in any order (``bar/19(2)`` with 3-3 enters
    both checkers first). A named point the dice cannot stop on reaches nothing.
    """
    roll = _replay.roll_dice(dice)
    per_chain = [_chain_steps(tuple(points), roll) for points, _ in moves]
    out = set()
    seen = set()

    def walk(mine, opp, left, chains, at):
        key = (tuple(mine), tuple(opp), left, at)
        if key in seen:
            return
        seen.add(key)
        if all(k == len(chain) for k, chain in zip(at, chains)):
            out.add(np.array([opp, mine], dtype=np.int8).tobytes())
            return
        for c, chain in enumerate(chains):
            if at[c] == len(chain):
                continue
            source, landing, die = chain[at[c]]
            if die not in left or _replay.step_problem(mine, opp, source, landing, die) is not None:
                continue
            m, o = _replay.apply_step(mine, opp, source, landing)
            walk(m, o, _replay.remove_die(left, die), chains, at[:c] + (at[c] + 1,) + at[c + 1 :])

    mine, opp = board[1].tolist(), board[0].tolist()
    for chains in itertools.product(*per_chain):
        seen.clear()
        walk(mine, opp, roll, chains, (0,) * len(chains))
    return out


def _candidates(board: np.ndarray, plays, moves: list) -> list:
    """Indices of the legal plays that *moves* (from :func:`parse_move_text`) describe.

    A play qualifies when it ends where the named moves end (R10: plays are told apart
    by the resulting position), hits wherever a ``*`` says so and wherever the text
    stops on a blot, and, when the text names intermediate points, when those points
    are stops the dice can reach (:func:`_reached`).
    """
    mine = board[1].astype(np.int64)
    named: set[int] = set()  # landing points the text names (intermediates included)
    starred: set[int] = set()
    for points, stars in moves:
        mine[24 if points[0] == BAR else points[0] - 1] -= 1
        if points[-1] != OFF:
            mine[points[-1] - 1] += 1
        named.update(p for p in points[1:] if p != OFF)
        starred |= stars
    if (mine < 0).any():
        return []
    same_row = np.flatnonzero((plays.boards[:, 1, :] == mine).all(axis=1)).tolist()
    if same_row and any(len(points) > 2 for points, _ in moves):
        reached = _reached(board, plays.dice, moves)
        same_row = [k for k in same_row if plays.boards[k].tobytes() in reached]
    opp_before = board[0]
    candidates = []
    for k in same_row:
        hits = _hits(board, plays.boards[k])
        if not starred <= hits:
            continue  # a '*' where nothing was hit
        if any(opp_before[24 - p] >= 1 and p not in hits for p in named):
            continue  # the text lands on an opposing checker without hitting it
        candidates.append((k, hits))
    if len(candidates) > 1:
        # A hit on the way is always written (24/18*/13): prefer plays hitting only where named.
        preferred = [c for c in candidates if c[1] <= named]
        if preferred:
            candidates = preferred
    return [k for k, _ in candidates]


def _mark_problem(board: np.ndarray, play: Play, moves: list, text: str) -> InvalidMoveTextError:
    """The error for a text whose points make a legal play but whose '*' marks do not fit."""
    hits = _hits(board, play.board_after)
    starred = set().union(*(stars for _, stars in moves)) if moves else set()
    wrong = sorted(starred - hits, reverse=True)
    if wrong:
        where = ", ".join(str(p) for p in wrong)
        return InvalidMoveTextError(
            f"move text {text!r} marks a hit ('*') on point {where}, but the play "
            f"{str(play)!r} hits nothing there"
        )
    return InvalidMoveTextError(  # pragma: no cover - a replay landing on a blot always hits it
        f"move text {text!r} does not say which checkers it hits; did you mean {str(play)!r}?"
    )


def parse_play(board: ArrayLike, dice: DiceLike, text: str, *, plays: Plays | None = None) -> Play:
    """The legal play of *board* with *dice* that *text* describes.

    Every point the text names is a stop the dice must reach: ``24/20/13`` with 6-5 is
    not ``24/13``. Raises :class:`InvalidMoveTextError` (malformed text, or a ``*`` where
    the play hits nothing), :class:`AmbiguousMoveError` (fits several plays) or
    :class:`IllegalPlayError` (well formed, not legal; ``.reason`` says why). *plays*
    may pass ``fastgen.legal_plays(board, dice)`` when the caller already has it.

    >>> import fastgen
    >>> str(parse_play(fastgen.STARTING_BOARD, (6, 5), "24/13"))
    '24/13'
    >>> str(parse_play(fastgen.STARTING_BOARD, (3, 3), "8/5 8/5 6/3 6/3"))
    '8/5(2) 6/3(2)'
    >>> parse_play(fastgen.STARTING_BOARD, (6, 5), "24/20/13")
    Traceback (most recent call last):
    ...
    fastgen.errors.IllegalPlayError: illegal play '24/20/13' at 24/20: no unused die of that number is left in the roll (R5); no unused die or dice of the roll make 4 pips
    """
    arr = as_board(board)
    dice = as_dice(dice)
    moves = parse_move_text(text)
    if plays is None:
        plays = legal_plays(arr, dice)
    elif not isinstance(plays, Plays) or tuple(plays.dice) != dice or not np.array_equal(plays.board, arr):
        raise InvalidMoveTextError(f"plays must be legal_plays(board, {dice!r}) of this board, got {plays!r}")
    found = _candidates(arr, plays, moves)
    if len(found) == 1:
        return plays[found[0]]
    if len(found) > 1:
        options = ", ".join(repr(str(plays[k])) for k in found)
        raise AmbiguousMoveError(f"move text {text!r} fits several legal plays: {options}")
    result = diagnose_moves(arr, dice, moves, text=text, plays=plays)
    if isinstance(result, Play):
        raise _mark_problem(arr, result, moves, text)
    raise result


# --------------------------------------------------------------------------- check_play


def _moves_from_steps(steps) -> list[tuple[tuple[int, ...], set[int]]]:
    """Validate a sequence of ``(from, to)`` pairs and turn it into parse_move_text form."""
    pairs = as_list(steps, InvalidMoveTextError, "a play must be a Play, a text or (from, to) steps")
    if len(pairs) > 4:
        raise InvalidMoveTextError(f"a play has at most four steps, got {steps!r}")
    return [(step_value(pair, steps)[:2], set()) for pair in pairs]


def _replayed(play: Play):
    """The position a Play's own steps lead to (bytes), or None if a step has no checker."""
    mine, opp = play.board_before[1].tolist(), play.board_before[0].tolist()
    for source, target in play.moves:
        if not mine[_replay.index(source)]:
            return None
        mine, opp = _replay.apply_step(mine, opp, source, target)
    return np.array([opp, mine], dtype=np.int8).tobytes()


def check_play(board: ArrayLike, dice: DiceLike, play: Play | str | StepsLike) -> Play:
    """Return the legal :class:`Play` that *play* denotes, or raise :class:`IllegalPlayError`.

    *play* may be a :class:`Play`, a move text (``"8/5 6/5"``) or a sequence of
    ``(from, to)`` steps in playing order (a step may span several dice, ``(24, 13)``).
    Exactly the legal plays are accepted (R10-R14). A rejection carries ``.reason``
    (:class:`IllegalReason`) and ``.step``.

    >>> import fastgen
    >>> check_play(fastgen.STARTING_BOARD, (6, 5), [(24, 18), (18, 13)]).text()
    '24/13'
    >>> try:
    ...     check_play(fastgen.STARTING_BOARD, (6, 5), "13/7 13/9")
    ... except IllegalPlayError as exc:
    ...     exc.reason.name, exc.step
    ('DIE_NOT_IN_ROLL', (13, 9))
    """
    arr = as_board(board)
    dice = as_dice(dice)
    plays = legal_plays(arr, dice)
    if isinstance(play, Play):
        # A play of this very position is judged by where it ends (R10); a play made on
        # another board is replayed here step by step.
        if play.board_before.tobytes() == arr.tobytes():
            if _replayed(play) != play.board_after.tobytes():
                raise InvalidMoveTextError(
                    f"inconsistent Play {play!r}: its moves do not lead to its board_after"
                )
            target = play.board_after.tobytes()
            for k, b in enumerate(plays.boards):
                if b.tobytes() == target:
                    return plays[k]
        moves = _moves_from_steps(play.moves)
        result = diagnose_moves(arr, dice, moves, text=str(play), plays=plays, keep_order=True)
    elif isinstance(play, str):
        return parse_play(arr, dice, play, plays=plays)
    else:
        moves = _moves_from_steps(play)
        result = diagnose_moves(arr, dice, moves, text=[m[0] for m in moves], plays=plays, keep_order=True)
    if isinstance(result, Play):
        return result
    raise result


# --------------------------------------------------------------------------- legal_steps


class _Walker:
    """Which partial step sequences can still end in a legal play (memoised per position)."""

    def __init__(self, board, dice, plays):
        self.legal = plays.position_set()
        self.total = max(len(_moves_of(plays, k)) for k in range(len(plays)))
        self.memo = {}

    def can_finish(self, mine, opp, dice_left, played: int) -> bool:
        if played == self.total:
            return np.array([opp, mine], dtype=np.int8).tobytes() in self.legal
        key = (tuple(mine), tuple(opp), dice_left)
        if key not in self.memo:
            self.memo[key] = any(True for _ in self.next_steps(mine, opp, dice_left, played))
        return self.memo[key]

    def next_steps(self, mine, opp, dice_left, played: int):
        if played >= self.total:
            return
        for die in sorted(set(dice_left), reverse=True):
            left = _replay.remove_die(dice_left, die)
            for source, target in _replay.legal_single_steps(mine, opp, die):
                m, o = _replay.apply_step(mine, opp, source, target)
                if self.can_finish(m, o, left, played + 1):
                    yield source, target, die


def legal_steps(board: ArrayLike, dice: DiceLike, played: StepsLike = ()) -> list[tuple[int, int, int]]:
    """The single steps ``(from, to, die)`` that may come next after *played*.

    *played* is the sequence of steps already made this turn, each ``(from, to)`` or
    ``(from, to, die)``; it must itself be the beginning of a legal play (else
    :class:`IllegalPlayError` explains why). A step is listed when some legal play
    (R10-R14) continues with it, in any order of its steps; the list is empty when the
    turn is complete. Sorted by die (high first), then source (high first).

    >>> import fastgen
    >>> legal_steps(fastgen.STARTING_BOARD, (2, 1), [(13, 11), (11, 10)])
    []
    """
    arr = as_board(board)
    dice = as_dice(dice)
    plays = legal_plays(arr, dice)
    walker = _Walker(arr, dice, plays)
    states = {(tuple(arr[1].tolist()), tuple(arr[0].tolist()), _replay.roll_dice(dice))}
    if isinstance(played, (str, bytes)) or played is None:
        raise InvalidMoveTextError(f"played must be a sequence of steps, got {played!r}")
    try:
        played = list(played)
    except TypeError:
        raise InvalidMoveTextError(f"played must be a sequence of steps, got {played!r}") from None
    if len(played) > 4:
        raise InvalidMoveTextError(f"a turn has at most four steps, got {played!r}")
    for n, step in enumerate(played):
        parts = step_value(step, played)
        following = set()
        for mine, opp, left in states:
            for s, t, d in walker.next_steps(list(mine), list(opp), left, n):
                if (s, t) == parts[:2] and (len(parts) == 2 or d == parts[2]):
                    m, o = _replay.apply_step(mine, opp, s, t)
                    following.add((tuple(m), tuple(o), _replay.remove_die(left, d)))
        if not following:
            raise _explain_prefix(arr, dice, plays, played, n)
        states = following
    steps = set()
    for mine, opp, left in states:
        steps.update(walker.next_steps(list(mine), list(opp), left, len(played)))
    return sorted(steps, key=lambda s: (-s[2], -s[0], -s[1]))


def _explain_prefix(board, dice, plays, played, n):
    """The error for a played prefix whose step *n* cannot lead to a legal play."""
    steps = [step_value(s)[:2] for s in list(played)[: n + 1]]
    bad = steps[-1]
    moves = _moves_from_steps(steps)
    result = diagnose_moves(board, dice, moves, text=steps, plays=plays, keep_order=True)
    if isinstance(result, IllegalPlayError) and result.reason not in (
        IllegalReason.MORE_DICE_POSSIBLE,
        IllegalReason.LARGER_DIE_REQUIRED,
    ):
        return result
    # Every step so far is legal on its own, but no legal play continues this way.
    legal = format_play(board, _moves_of(plays, 0))
    walker_reason = (
        IllegalReason.LARGER_DIE_REQUIRED
        if dice[0] != dice[1] and max(len(_moves_of(plays, k)) for k in range(len(plays))) == 1
        else IllegalReason.MORE_DICE_POSSIBLE
    )
    return _error(
        steps, walker_reason, bad,
        f"after {_step_text(*bad)} the turn cannot end in a legal play (for example {legal!r})",
    )
