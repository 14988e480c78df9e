"""One grammar for naming a policy or an evaluator, in Python and on the command line.

Every function and command that takes a policy (:func:`fastgen.rollout`,
:func:`fastgen.duel`, ``BackgammonEnv(opponent=...)``, ``fastgen duel``, ``fastgen
rollout``, ``fastgen serve-external``) or an evaluator (:func:`fastgen.rollout_plays`,
:func:`fastgen.rollout_position`, ``fastgen rollout-plays``, ``fastgen
rollout-position``) reads it with :func:`policy` or :func:`evaluator`, so a spec means the
same everywhere:

=======================  ======================================================  ===================================================
spec                     as a policy                                             as an evaluator
=======================  ======================================================  ===================================================
``random``               a uniformly random play (inside the core)               --
``pubeval``              Tesauro's pubeval (inside the core)                     --
``baseline``             :func:`fastgen.players.policies.baseline`               :func:`fastgen.players.evaluators.baseline`
``baseline:N``           the baseline searched at N plies (below)                the baseline at N plies (below)
``gnubg`` / ``gnubg:N``  :func:`fastgen.players.policies.gnubg` at N plies       :func:`fastgen.players.evaluators.gnubg` at N plies
``gnubg-nn[:N]``         :func:`fastgen.players.policies.gnubg_nn` (N plies)     :func:`fastgen.players.evaluators.gnubg_nn` (N plies)
``gnubg-engine[:N]``     :class:`fastgen.players.engines.GnubgEngine` (N plies)  --
``network:SEED``         greedy of the reference network below                   :func:`fastgen.players.evaluators.random_network`
``PATH.npz``             greedy of the network below                             :meth:`fastgen.nets.Network.load`
``PATH.npz:N``           the network searched at N plies (below)                 the network at N plies (below)
``module:callable``      the callable (or what its factory returns)              the callable (or what its factory returns)
=======================  ======================================================  ===================================================

``gnubg:0`` is GNU Backgammon's nets evaluated in fastgen's core
(:mod:`fastgen.nets.gnubg`) whenever its weights are found (installed gnubg or gnubg-nn),
else gnubg-nn with a notice; so are the evaluators ``gnubg:1`` to ``gnubg:3``, their look
ahead at that many plies with the program's default pruning of the choices inside it
(:class:`fastgen.nets.gnubg.GnubgLookahead`), and the policies ``gnubg:N`` for N >= 1
choose through GNU Backgammon's move filters (:class:`fastgen.Search`);
``gnubg-nn[:N]`` goes through gnubg-nn (which does not prune), one Python call a
position.

``baseline:N`` and ``PATH.npz:N`` (N = 0 to 3) are a compiled network looked through the
same way: the evaluator is its compiled look ahead
(:class:`fastgen.nets.lookahead.NetworkLookahead`: each roll played as the network plays
it, valued one ply shallower), the policy the play that survives GNU Backgammon's move
filters valued at N plies (:meth:`fastgen.Search.gnubg`); ``:0`` is the network itself.

A network is an evaluator, and :func:`fastgen.players.evaluators.greedy` of it its policy: a
compiled :class:`fastgen.nets.Network` (or a spec naming one) given where a policy is
wanted plays greedily. A ``PATH.npz`` is a weights file in :mod:`fastgen.nets.files`'
layout (what :meth:`fastgen.nets.Network.save` writes) and loads as that network.
``network:SEED`` is a :class:`~fastgen.players.evaluators.ReferenceNetwork` with random
weights (:func:`~fastgen.players.evaluators.random_network`, 128 hidden units): the
numpy reference network, for tests.

A ``PATH.npz`` in the older one hidden layer layout (arrays ``w1, b1, w2, b2``, what
:meth:`ReferenceNetwork.save <fastgen.players.evaluators.ReferenceNetwork.save>` writes)
still loads, as that :class:`~fastgen.players.evaluators.ReferenceNetwork`, with a
DeprecationWarning: later releases read only the compiled layout, so convert such a file
once, ``fastgen convert-network OLD.npz NEW.npz`` or
:func:`fastgen.players.evaluators.convert_network_file`.

``module:callable`` imports *module* (dotted names allowed, ``pkg.mod:obj.attr``) with
the current directory importable, as ``python -m`` has it (the directory is put first on
``sys.path`` when it is not there), so ``fastgen duel mybot:policy pubeval`` finds
``mybot.py`` in the folder it is run from. The callable is used as it is when it can be
called the way its role is called: ``f(candidates, offsets)`` for a policy (``f(candidates,
offsets, boards, dice)`` with ``wants_position = True``), ``f(boards)`` for an evaluator.
A callable that takes no arguments at all (a function ``make()``, a class whose
constructor needs none) is a factory: it is called once and what it returns is the policy
or evaluator. Anything else raises :class:`fastgen.InvalidSpecError` quoting the spec
(and so does an unknown name, a missing module or attribute, or a bad weights file:
missing, not a regular file, truncated or damaged).

A ``module:callable`` spec runs code: importing *module* runs it, and so does calling the
callable (or its factory). It is trusted exactly as running ``python -c "import module;
module.callable()"`` would be: fastgen neither sandboxes nor vets it, so a spec such as
``os:abort`` does what that function does (here, abort the process). Take specs only from
people whose code you would run; a spec from an untrusted source should be limited to the
names above and weights files (:func:`check` tells the forms apart without loading
anything).

>>> policy("pubeval")
<policy pubeval>
>>> evaluator("network:1").hidden
128
>>> policy("network:1").name
'greedy(network(tesauro198, 128 hidden))'

Given the wrong role, the resolver says so at once:

>>> evaluator(policy("baseline"))
Traceback (most recent call last):
...
fastgen.errors.InvalidArgumentError: evaluator <policy baseline> is a policy (it chooses plays) where an evaluator is wanted (it scores positions: f(boards) -> (N, 5) probabilities)
"""

from __future__ import annotations

import importlib
import os
import re
import sys
import zipfile
from typing import Any, Callable

from fastgen.players import evaluators, policies
from fastgen.formats.checked import open_regular
from fastgen.players.engines import GnubgEngine
from fastgen.errors import (FastgenError, GnubgWeightsNotFoundError, InvalidArgumentError, InvalidSpecError,
                            NetworkFileError)
from fastgen.nets.gnubg_weights import ENVIRONMENT_VARIABLE as WEIGHTS_VARIABLE, find_weights
from fastgen.players.base import CubePlayer, Evaluator, Policy, as_evaluator, as_policy, signature_binds
from fastgen.players.evaluators import ReferenceNetwork, greedy
from fastgen.nets import files as network_files
from fastgen.nets.lookahead import MAX_PLIES
from fastgen.nets.network import Network as CompiledNetwork
from fastgen.players.search import Search, SearchPolicy

__all__ = ["policy", "evaluator", "cube_player", "check", "resolve_policy", "default_evaluator", "GRAMMAR"]

#: The forms of a spec, for error messages.
GRAMMAR = ("random, pubeval, baseline[:N], gnubg[:N], gnubg-nn[:N], gnubg-engine[:N], network:SEED, PATH.npz[:N] or "
           "module:callable")

#: A compiled network looked through at N plies: ``baseline:N``, ``PATH.npz:N``.
_SEARCHED = re.compile(r"(baseline|.+\.npz):([0-9]{1,9})", re.IGNORECASE)

_NUMBERED = re.compile(r"(gnubg|gnubg-nn|gnubg-engine|network)(?::([0-9]{1,9}))?")

#: The most plies of each numbered kind, by role (gnubg-nn's best_move, its evaluation,
#: the GNU Backgammon program).
_MAX_PLIES = {("gnubg", "policy"): 3, ("gnubg", "evaluator"): 4, ("gnubg-nn", "policy"): 3,
              ("gnubg-nn", "evaluator"): 4, ("gnubg-engine", "policy"): 4}

#: How each role is called, for the signature check and its messages.
_CALLS = {"policy": ("candidates", "offsets"), "evaluator": ("boards",)}


def default_evaluator() -> str:
    """The evaluator the commands that judge (``fastgen analyse``, ``hint``, ``cube``,
    ``rollout-plays``) use when none is named: ``"gnubg:0"``, GNU Backgammon's nets
    compiled, where a weights file is found
    (:func:`fastgen.nets.gnubg_weights.find_weights`: an installed gnubg or gnubg-nn, or
    ``FASTGEN_GNUBG_WEIGHTS``), else ``"baseline"``, fastgen's shipped network. Nothing
    is read: the file is only looked for. A ``FASTGEN_GNUBG_WEIGHTS`` naming no file
    raises :class:`~fastgen.errors.GnubgWeightsNotFoundError` (it asked for gnubg's nets)."""
    try:
        find_weights()
    except GnubgWeightsNotFoundError:
        if os.environ.get(WEIGHTS_VARIABLE):
            raise
        return "baseline"
    return "gnubg:0"


def policy(spec: Any) -> Policy:
    """The :class:`~fastgen.players.base.Policy` *spec* names (a string of the grammar
    above), or *spec* itself as one: ``"random"`` and ``"pubeval"`` are the built-in
    policies the loops play inside the core, an evaluator (a network) becomes its greedy
    player, and any other callable is checked to take ``(candidates, offsets)``
    (``(candidates, offsets, boards, dice)`` with ``wants_position = True``) and wrapped. A
    cube player raises, naming both roles. A ``gnubg-engine`` spec starts a GNU Backgammon
    process: close it when done (it is also closed when garbage collected)."""
    if isinstance(spec, str):
        if spec in policies.BUILTIN:
            return policies.BUILTIN[spec]
        return _as_policy(_load(spec, "policy"), spec)
    return _as_policy(spec, None)


def evaluator(spec: Any) -> Evaluator:
    """The :class:`~fastgen.players.base.Evaluator` *spec* names (a string of the grammar
    above), or *spec* itself as one (a user's callable ``f(boards)`` is wrapped, its
    answers checked). A policy or a cube player raises, naming both roles."""
    if isinstance(spec, str):
        return as_evaluator(_load(spec, "evaluator"), f"evaluator {spec!r}", InvalidSpecError)
    return as_evaluator(spec)


def cube_player(spec: Any, threads: int = 1) -> CubePlayer:
    """*spec* itself when it is a :class:`~fastgen.players.base.CubePlayer` (such as a
    :class:`fastgen.players.policies.CubePolicy`), else the ``cube_policy`` of the
    evaluator it is or names (a spec's text, such as ``"baseline"``, becomes the player's
    name, *threads* the threads of its cube decisions); a spec that names no evaluator
    raises as :func:`evaluator` does."""
    if isinstance(spec, CubePlayer):
        return spec
    return policies.cube_policy(evaluator(spec), name=spec if isinstance(spec, str) else None, threads=threads)


def resolve_policy(spec: Any, seed: int, threads: int = 1) -> tuple[Callable[..., Any], str]:
    """The step function the game loops call (``step(candidates, offsets, gid, turn, boards,
    dice)``, :func:`fastgen.players.policies.step_function`) for *spec* and its name (the
    spec itself for a string)."""
    found = policy(spec)
    name = spec if isinstance(spec, str) else found.name
    return policies.step_function(found, seed, threads), name


def check(spec: str, role: str = "policy") -> str:
    """*spec* itself when its form is one of the grammar's for *role* (``"policy"`` or
    ``"evaluator"``), without loading anything (no import, no process started: what the
    command line checks before any work); else :class:`fastgen.InvalidSpecError`. A
    weights file must exist and be a regular file (a FIFO, a device or a folder is refused
    at once, without waiting on it)."""
    if role not in _CALLS:
        raise InvalidArgumentError(f"role must be 'policy' or 'evaluator', got {role!r}")
    if not isinstance(spec, str) or not spec:
        raise InvalidSpecError(f"a {role} spec must be a non-empty text ({GRAMMAR}), got {spec!r}")
    if spec in policies.BUILTIN:
        if role == "evaluator":
            raise InvalidSpecError(f"{spec!r} is a policy, not an evaluator (an evaluator is f(boards) -> probabilities)")
        return spec
    searched = _SEARCHED.fullmatch(spec)
    if searched:
        if int(searched.group(2)) > MAX_PLIES:
            raise InvalidSpecError(f"{role} {spec!r}: plies must be 0 to {MAX_PLIES}")
        check(searched.group(1), role)
        return spec
    if spec == "baseline":
        return spec
    if spec.lower().endswith(".npz"):
        if not os.path.isfile(spec):
            if not os.path.exists(spec):
                raise InvalidSpecError(f"{role} {spec!r}: no such weights file")
            with open_regular(spec, f"{role} weights file", InvalidSpecError):  # a FIFO, device or folder:
                pass  # refused here, without waiting for a writer (the message says what it is)
        return spec
    m = _NUMBERED.fullmatch(spec)
    if m:
        kind, number = m.group(1), int(m.group(2) or 0)
        if kind == "network":
            return spec
        most = _MAX_PLIES.get((kind, role))
        if most is None:
            raise InvalidSpecError(f"{spec!r} is a policy (the GNU Backgammon program picks plays), not an evaluator")
        if number > most:
            raise InvalidSpecError(f"{role} {spec!r}: plies must be 0 to {most}")
        return spec
    module, sep, attr = spec.partition(":")
    if not sep or not all(p.isidentifier() for p in module.split(".") + attr.split(".")):
        raise InvalidSpecError(f"unknown {role} {spec!r}: expected {GRAMMAR}")
    return spec


# --------------------------------------------------------------------------- loading


def _load(spec: str, role: str) -> Any:
    """The object *spec* names, for *role* ("policy" or "evaluator")."""
    check(spec, role)
    searched = _SEARCHED.fullmatch(spec)
    if searched:
        return _searched(searched.group(1), int(searched.group(2)), spec, role)
    if spec == "baseline":
        return policies.baseline() if role == "policy" else evaluators.baseline()
    if spec.lower().endswith(".npz"):
        try:
            if _in_deprecated_layout(spec):
                network_files.warn_old_layout(f"{role} {spec!r}", spec)
                return ReferenceNetwork.load(spec, name=os.path.basename(spec))
            return CompiledNetwork.load(spec, name=os.path.basename(spec))
        except FastgenError as exc:  # a file missing, truncated, damaged, of bad weights ...: one line
            raise InvalidSpecError(f"{role} {spec!r} cannot be loaded: {exc}") from None
        except (ValueError, TypeError, OSError) as exc:  # weights numpy itself refuses
            raise InvalidSpecError(f"{role} {spec!r} cannot be loaded: {type(exc).__name__}: {exc}") from None
    m = _NUMBERED.fullmatch(spec)
    if m:
        kind, number = m.group(1), int(m.group(2) or 0)
        try:
            if kind == "network":
                return evaluators.random_network(seed=number)
            if kind == "gnubg-engine":
                return GnubgEngine(plies=number)
            if kind == "gnubg-nn":
                return policies.gnubg_nn(number) if role == "policy" else evaluators.gnubg_nn(number)
            return policies.gnubg(number) if role == "policy" else evaluators.gnubg(number)
        except (InvalidArgumentError, ImportError) as exc:
            raise InvalidSpecError(f"{role} {spec!r} cannot be loaded: {exc}") from None
    module, _, attr = spec.partition(":")
    obj = _import(module, spec, role)
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise InvalidSpecError(f"{role} {spec!r} cannot be loaded: {obj!r} has no attribute {part!r}") from None
    if not callable(obj):
        raise InvalidSpecError(f"{role} {spec!r} is not callable: {obj!r}")
    if signature_binds(obj, (), unknown=False):  # a factory (a callable without a signature is not one)
        try:
            obj = obj()
        except Exception as exc:
            raise InvalidSpecError(f"{role} {spec!r} cannot be loaded: its factory raised {type(exc).__name__}: {exc}") from exc
        if not callable(obj):
            raise InvalidSpecError(f"{role} {spec!r} cannot be loaded: its factory returned {obj!r}, which is not callable")
    return obj


def _searched(base: str, plies: int, spec: str, role: str) -> Any:
    """The compiled network *base* names at *plies*: as an evaluator its look ahead
    (:meth:`fastgen.nets.Network.at_ply`), as a policy its play through GNU Backgammon's
    move filters (:meth:`fastgen.Search.gnubg`); at 0 plies *base* itself."""
    net = _load(base, "evaluator")
    if plies == 0:
        return _load(base, role)
    if not isinstance(net, CompiledNetwork):
        raise InvalidSpecError(f"{role} {spec!r}: only a compiled network looks ahead; {base!r} is "
                               f"{type(net).__name__} (convert it: fastgen convert-network)")
    if role == "policy":
        return SearchPolicy(net, Search.gnubg(plies), name=spec)
    return net.at_ply(plies)


def _import(module: str, spec: str, role: str) -> Any:
    """*module* imported with the current directory first on sys.path (as ``python -m``)."""
    cwd = os.getcwd()
    added = cwd not in sys.path and "" not in sys.path
    if added:  # for this import only: a folder left on sys.path would reach later imports
        sys.path.insert(0, cwd)  # (and worker processes started later, which copy sys.path)
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module.startswith(exc.name):
            raise InvalidSpecError(
                f"{role} {spec!r} cannot be loaded: no module named {exc.name!r} "
                f"(looked in the current directory {cwd} and on sys.path)"
            ) from None
        raise InvalidSpecError(f"{role} {spec!r} cannot be loaded: importing {module!r} failed: {exc}") from exc
    except Exception as exc:
        raise InvalidSpecError(
            f"{role} {spec!r} cannot be loaded: importing {module!r} failed: {type(exc).__name__}: {exc}"
        ) from exc
    finally:
        if added and sys.path and sys.path[0] == cwd:
            del sys.path[0]


def _in_deprecated_layout(path: str) -> bool:
    """Whether the ``.npz`` file *path* is in the deprecated one hidden layer layout of
    :class:`~fastgen.players.evaluators.ReferenceNetwork` (arrays ``w1, b1, w2, b2`` and no
    ``format`` array), read for one more release as that network, with a warning; any
    other file (:mod:`fastgen.nets.files`' layout, or no network file at all) goes to
    :meth:`fastgen.nets.Network.load`, which says what is wrong with it. The spec
    grammar's one test of the old layout; it goes when that layout does. Opened by
    :func:`fastgen.formats.checked.open_regular` (a FIFO or a device is refused, never
    waited on); only the archive's directory is read."""
    with open_regular(path, "network file", NetworkFileError) as f:
        try:
            with zipfile.ZipFile(f) as z:
                names = set(z.namelist())
        except Exception:  # not a zip archive, or a damaged one: read and reported by the loader
            return False
    return network_files.is_old_layout(n[: -len(".npy")] for n in names if n.endswith(".npy"))


def _as_policy(obj: Any, spec: str | None) -> Policy:
    """A loaded or given object as a policy: an evaluator (a network) plays greedily."""
    if isinstance(obj, Evaluator):
        return greedy(obj)
    if spec is None:
        return as_policy(obj)
    return as_policy(obj, f"policy {spec!r}", InvalidSpecError)
