"""The ``fastgen play`` subcommand: a match or a money session against any player, in
the terminal.

    fastgen play                              # a 3-point match against the baseline network
    fastgen play --length 0 --games 5         # five money games
    fastgen play --opponent gnubg:0 --evaluator gnubg:0 --save mine.mat

The board is drawn in text from your side (you are X, moving from 24 down to 1). At
each of your turns type a play in the usual notation (``8/5 6/5``, ``bar/22``,
``6/off``, ``13/7*``, ``6/4(2)``); a play that breaks a rule is refused with the rule
it breaks, and you type again. Before your roll: Enter (or ``roll``) rolls,
``double`` offers the cube. At any prompt: ``hint`` ranks your plays (or tells your
cube action) by the evaluator, ``resign [single|gammon|backgammon]`` offers to
resign, ``board`` draws the board again, ``help`` lists the commands and ``quit``
stops. When the other player doubles, answer ``take`` or ``pass``.

The other player plays by ``--opponent`` (any policy spec: ``baseline``, ``gnubg:0``,
``pubeval``, ``PATH.npz``, ``module:callable``) and decides the cube and your
resignations by ``--evaluator``'s cube decisions and equities. With ``--save FILE.mat``
the record is written when the match ends or you stop (``quit``, Ctrl-D or Ctrl-C).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable

import numpy as np

from fastgen.cli.args import add_subcommand, int_in_range, spec_arg
from fastgen.errors import FastgenError, InvalidArgumentError
from fastgen.formats.checked import check_destination

__all__ = ["add_parser", "run_play", "PlaySession"]

HUMAN, BOT = 0, 1
_RESULTS = {"single": 1, "s": 1, "gammon": 2, "g": 2, "backgammon": 3, "b": 3}
_HELP_BEFORE = ("Before your roll: Enter or 'roll' rolls, 'double' offers the cube, 'hint' tells your cube action, "
                "'resign [single|gammon|backgammon]', 'board', 'quit'.")
_HELP_AFTER = ("Type your play (8/5 6/5, bar/22, 6/off, 13/7*, 6/4(2)); 'hint' ranks your plays, "
               "'resign [single|gammon|backgammon]', 'board', 'quit'.")


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``play`` subcommand on an argparse *subparsers* object."""
    parser = add_subcommand(
        subparsers, "play", help="play a match or money games against a bot in the terminal",
        description="Play against any fastgen player in the terminal: the board drawn in text, your plays typed "
        "in the usual notation and checked, the cube, resignations and hints; the record saved as .mat.",
    )
    parser.add_argument("--opponent", type=spec_arg("policy"), default="baseline",
                        help="the other player's policy (baseline, gnubg[:N], pubeval, PATH.npz, module:callable)")
    parser.add_argument("--evaluator", type=spec_arg("evaluator"), default="baseline",
                        help="the evaluator of the other player's cube and resignation answers, and of your hints")
    parser.add_argument("--length", type=int_in_range(0, 64), default=3,
                        help="the match length in points (0: money games)")
    parser.add_argument("--games", type=int_in_range(1), default=1, help="money games to play (with --length 0)")
    parser.add_argument("--no-cube", action="store_true", help="play without the doubling cube")
    parser.add_argument("--name", default="You", help="your name in the record")
    parser.add_argument("--seed", type=int_in_range(0, 2**63 - 1), help="the dice's seed (default: fresh dice)")
    parser.add_argument("--save", metavar="FILE.mat", help="write the record to FILE.mat at the end")
    parser.set_defaults(func=run_play)
    return parser


class _Stop(Exception):
    """The user asked to stop (quit, end of input)."""


class PlaySession:
    """One match (or money session) between a person typing at *ask* and a bot.

    *ask(prompt)* returns the person's next line (raises EOFError at the end of input);
    *say(text)* shows a line. *policy*: the bot's play choice (a resolved policy of
    :func:`fastgen.players.specs.resolve_policy`); *evaluator*: its cube and resignation answers
    and the hints. The dice come from *seed*.
    """

    def __init__(self, policy: Any, evaluator: Any, *, length: int = 3, games: int = 1, cube: bool = True,
                 names: tuple[str, str] = ("You", "baseline"), seed: int | None = None,
                 ask: Callable[[str], str] = input, say: Callable[[str], Any] = print) -> None:
        from fastgen.games.match import Match  # lazy: the command's own imports stay light for --help
        from fastgen.players.policies import cube_policy  # lazy: loaded for a game
        from fastgen.players.specs import resolve_policy  # lazy: loaded for a game

        self.choose, self.policy_name = resolve_policy(policy, 0 if seed is None else seed)
        self.evaluator = evaluator
        self.cube_player = cube_policy(evaluator) if cube else None
        self.match = Match(length, seed=seed, names=names, jacoby=False)
        self.games = games
        self.cube = cube
        self.ask, self.say = ask, say
        self.turns = 0

    # ----------------------------------------------------------------- views

    def _state(self, on_roll: int) -> Any:
        from fastgen.core.state import MatchState  # lazy: loaded for a game

        g = self.match.game
        assert g is not None
        return MatchState(match_length=self.match.length, score=self.match.score if self.match.length else (0, 0),
                          cube_value=g.cube_value, cube_owner=g.cube_owner, crawford=g.crawford, on_roll=on_roll,
                          max_cube=g.cube_cap)

    def draw(self) -> None:
        """The board from the person's side, with the score, the cube and the dice."""
        from fastgen.games.board import Board  # lazy: loaded for a game
        from fastgen.core.ids import position_id  # lazy: loaded for a game

        g = self.match.game
        assert g is not None
        board = g.board_for(HUMAN)
        m = self.match
        you, bot = m.names
        if m.length:
            head = f"{m.length}-point match, {you} {m.score[0]} - {m.score[1]} {bot}" + \
                (" (Crawford game)" if g.crawford else "")
        else:
            head = f"money game {len(m.games)} of {self.games}, {you} {m.score[0]:+d} points so far"
        owner = "centred" if g.cube_owner is None else ("yours" if g.cube_owner == HUMAN else f"{bot}'s")
        cube = f"cube {g.cube_value} ({owner})" if self.cube else "no cube"
        self.say("")
        self.say(f"{head}; {cube}; Position ID {position_id(board)}")
        self.say(str(Board(board)).replace("(on roll)", f"({you})"))

    # ----------------------------------------------------------------- the bot

    def _bot_turn(self) -> None:
        g = self.match.game
        assert g is not None
        if self._bot_offers():
            self.say(f"{self.match.names[BOT]} doubles to {g.cube_value * 2}.")
            g.double(player=BOT)
            while True:
                answer = self._read("Take or pass? ").lower()
                if answer in ("t", "take"):
                    g.take(player=HUMAN)
                    self.say(f"You take; the cube is at {g.cube_value}, yours.")
                    break
                if answer in ("p", "pass", "d", "drop"):
                    g.drop(player=HUMAN)
                    return
                self.say("Answer 'take' or 'pass'.")
        dice = g.roll(player=BOT)
        self.say(f"{self.match.names[BOT]} rolls {_dice(dice)} and plays {self._bot_play()}.")

    def _bot_play(self) -> str:
        from fastgen.players.policies import pick_play  # lazy: loaded for a game

        g = self.match.game
        assert g is not None and g.dice is not None
        play = pick_play(self.choose, self.policy_name, g.board, g.dice, self.turns)
        g.play(play, player=BOT)
        self.turns += 1
        return str(play) or "nothing (no legal play)"

    def _bot_offers(self) -> bool:
        g = self.match.game
        assert g is not None
        if self.cube_player is None or g.turn != BOT or g.dice is not None or not g.may_double:
            return False
        if self.match.length and g.cube_value >= self.match.length - self.match.score[BOT]:
            return False  # the cube already wins the bot the match
        owns = np.array([g.cube_owner == BOT])
        return bool(self.cube_player.offer(g.board[None], owns, [self._state(BOT)])[0])

    def _bot_accepts_double(self) -> bool:
        g = self.match.game
        assert g is not None
        if self.cube_player is None:
            return True
        owns = np.array([g.cube_owner == HUMAN])
        return bool(self.cube_player.accept(g.board[None], owns, [self._state(HUMAN)])[0])

    def _bot_accepts_resignation(self, result: int) -> bool:
        """Whether the bot takes *result* (1-3 times the cube) rather than play on: when
        it is at least what the bot expects to win (its cubeless equity a cube)."""
        from fastgen.players.evaluators import equity, evaluate  # lazy: loaded for a game

        g = self.match.game
        assert g is not None
        mine = float(equity(evaluate(self.evaluator, g.board[None]))[0])  # the side on roll's cubeless equity
        bot_expects = -mine if g.turn == HUMAN else mine
        return result >= bot_expects - 1e-9

    # ----------------------------------------------------------------- the person

    def _read(self, prompt: str) -> str:
        try:
            line = self.ask(prompt)
        except EOFError:
            raise _Stop() from None
        line = line.strip()
        if line.lower() in ("q", "quit", "exit"):
            raise _Stop()
        return line

    def _common(self, word: str, before_roll: bool) -> bool:
        """Handle a command allowed at every prompt; True when *word* was one."""
        low = word.lower()
        if low in ("help", "?", "h"):
            self.say(_HELP_BEFORE if before_roll else _HELP_AFTER)
        elif low in ("board", "b"):
            self.draw()
        elif low == "hint":
            self._hint(before_roll)
        elif low.split()[:1] == ["resign"]:
            self._resign(low.split()[1:])
        else:
            return False
        return True

    def _resign(self, words: list[str]) -> None:
        g = self.match.game
        assert g is not None
        if len(words) > 1 or (words and words[0] not in _RESULTS):
            self.say("Resign how: 'resign', 'resign gammon' or 'resign backgammon'.")
            return
        result = _RESULTS[words[0]] if words else 1
        g.resign(result, player=HUMAN)
        if self._bot_accepts_resignation(result):
            g.accept_resignation(player=BOT)
            self.say(f"{self.match.names[BOT]} accepts.")
        else:
            g.reject_resignation(player=BOT)
            self.say(f"{self.match.names[BOT]} declines: play on.")

    def _hint(self, before_roll: bool) -> None:
        from fastgen.analysis.hint import hint  # lazy: loaded for a game

        g = self.match.game
        assert g is not None
        if before_roll:
            if not self.cube:
                self.say("No cube in this game: roll.")
                return
            from fastgen.cube import cube_action  # lazy: loaded for a game

            d = cube_action(g.board, state=self._state(HUMAN), evaluator=self.evaluator)
            lines = ", ".join(f"{name.lower()} " + (f"{100 * v:.1f}%" if d.match else f"{v:+.3f}")
                              for name, v, _ in d.ranked)  # ranked as gnubg's hint ranks them
            self.say(f"Cube: {d.action.value} ({lines})")
            return
        ranked = hint(g.board, g.dice, self.evaluator, cubeless=True).plays[:5]
        best = ranked[0].equity
        self.say("Your plays by cubeless equity:")
        for rank, p in enumerate(ranked, 1):
            diff = "" if rank == 1 else f" ({p.equity - best:+.3f})"
            self.say(f"  {rank}. {p.play:<24} {p.equity:+.3f}{diff}")

    def _human_turn(self) -> None:
        g = self.match.game
        assert g is not None
        self.draw()
        if g.dice is None:
            while True:
                word = self._read("Your turn: roll (Enter), double, hint, resign, help? ")
                if g.over:
                    return
                if word.lower() in ("", "r", "roll"):
                    break
                if word.lower() in ("d", "double"):
                    if not self.cube:
                        self.say("There is no cube in this game.")
                        continue
                    try:
                        g.double(player=HUMAN)
                    except FastgenError as exc:
                        self.say(f"You cannot double: {exc}")
                        continue
                    if self._bot_accepts_double():
                        g.take(player=BOT)
                        self.say(f"{self.match.names[BOT]} takes; the cube is at {g.cube_value}.")
                        break
                    g.drop(player=BOT)
                    self.say(f"{self.match.names[BOT]} passes.")
                    return
                if not self._common(word, True):
                    self.say(f"Unknown command {word!r}. " + _HELP_BEFORE)
                if g.over:
                    return
            g.roll(player=HUMAN)
        plays = g.legal_plays()
        assert g.dice is not None
        rolled = f"You rolled {_dice(g.dice)}"
        if len(plays) == 1:  # nothing to choose: played for the person
            text = str(plays[0])
            self.say(f"{rolled}: " + (f"the only play is {text}." if text else "no legal play."))
            g.play(plays[0], player=HUMAN)
            return
        self.say(f"{rolled}.")
        while not g.over:
            word = self._read("Your play? ")
            if not word or self._common(word, False):
                continue
            try:
                g.play(word, player=HUMAN)
                return
            except FastgenError as exc:
                reason = getattr(exc, "reason", None)
                self.say(f"Not legal: {reason.rule}." if reason is not None else f"Not legal: {exc}")

    # ----------------------------------------------------------------- the loop

    def run(self) -> int:
        """Play until the match (or the money games) end, or the person stops; returns
        the games finished."""
        m = self.match
        try:
            while not m.over and not (m.length == 0 and len(m.games) >= self.games and m.game is not None
                                      and m.game.over):
                g = m.new_game()
                if m.length:
                    self.say(f"\nGame {len(m.games)}: {m.names[0]} {m.score[0]} - {m.score[1]} {m.names[1]}.")
                dice = g.roll()
                first = "you" if g.turn == HUMAN else m.names[BOT]
                self.say(f"Opening roll: {dice[0]} for {m.names[0]}, {dice[1]} for {m.names[1]}: {first} start"
                         + ("." if first == "you" else "s."))
                if g.turn == BOT:
                    self.say(f"{m.names[BOT]} plays {self._bot_play()}.")
                while not g.over:
                    if g.turn == HUMAN:
                        self._human_turn()
                    else:
                        self._bot_turn()
                self._game_over()
        except _Stop:
            self.say("Stopped.")
        return sum(1 for g in m.games if g.over)

    def _game_over(self) -> None:
        m = self.match
        g = m.game
        assert g is not None and g.winner is not None
        who = "You win" if g.winner == HUMAN else f"{m.names[BOT]} wins"
        kind = {1: "a single game", 2: "a gammon", 3: "a backgammon"}.get(g.result or 1, "the game")
        how = " (the double was passed)" if g.dropped else (" (by resignation)" if g.resigned else "")
        if not g.dropped and not g.resigned:
            self.draw()
        self.say(f"{who} {kind}{how}: {g.points} point{'s' if g.points != 1 else ''}.")
        if m.length:
            self.say(f"Score: {m.names[0]} {m.score[0]} - {m.score[1]} {m.names[1]}"
                     + (f". {'You win' if m.winner == HUMAN else m.names[BOT] + ' wins'} the match." if m.over else "."))
        else:
            self.say(f"Money so far: {m.names[0]} {m.score[0] - m.score[1]:+d} points.")


def run_play(args: argparse.Namespace) -> int:
    """Play from parsed arguments; returns the exit status."""
    from fastgen.formats.matfile import write_mat  # lazy: loaded for a game
    from fastgen.players.specs import evaluator as load_evaluator  # lazy: loaded for a game

    if args.save is not None:
        try:
            check_destination(args.save, ".mat file", InvalidArgumentError)
        except FastgenError as exc:
            print(f"fastgen play: error: {exc}", file=sys.stderr)
            return 2
    try:
        evaluator = load_evaluator(args.evaluator)
        session = PlaySession(args.opponent, evaluator, length=args.length, games=args.games, cube=not args.no_cube,
                              names=(args.name, _short(args.opponent)), seed=args.seed)
    except FastgenError as exc:
        print(f"fastgen play: error: {exc}", file=sys.stderr)
        return 2
    try:
        session.run()
    except KeyboardInterrupt:
        print("\nStopped.")
        _save(session, args.save, write_mat)
        return 130
    _save(session, args.save, write_mat)
    return 0


def _dice(dice: tuple[int, int]) -> str:
    """A roll as players write it, the higher die first: ``52``."""
    return f"{max(dice)}{min(dice)}"


def _short(spec: Any) -> str:
    text = str(spec)
    return text.rsplit("/", 1)[-1].replace(":", "-")[:24] or "bot"


def _save(session: PlaySession, path: str | None, write_mat: Callable[..., Any]) -> None:
    if path is None or not session.match.games:
        return
    try:
        write_mat(session.match, path)
        print(f"The record is in {path}.")
    except (FastgenError, OSError) as exc:
        print(f"fastgen play: error: cannot write {path!r}: {exc}", file=sys.stderr)
