"""fastgen.players.specs: one grammar for policies and evaluators, and the network class it loads."""

from __future__ import annotations

import sys
import textwrap
import uuid
import warnings

import numpy as np
import pytest

import fastgen
from fastgen.players import evaluators, policies, specs
from fastgen.players.engines import GnubgEngine, find_gnubg
from fastgen.errors import EngineError, FastgenError, InvalidArgumentError, InvalidSpecError
from fastgen.players.base import CubePlayer, Evaluator, Policy
from fastgen.players.evaluators import ReferenceNetwork
from fastgen.nets import Network as CompiledNetwork
from fastgen.nets.gnubg import GnubgNetworks

from _positions import random_play_positions

BOARD = fastgen.STARTING_BOARD


@pytest.fixture
def bot_folder(tmp_path, monkeypatch):
    """A folder, made the current directory, where ``write(source)`` puts a module of a
    fresh name (returned); sys.path is restored afterwards."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    names = []

    def write(source: str) -> str:
        name = f"bot_{uuid.uuid4().hex[:10]}"
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
        names.append(name)
        return name

    yield write
    for name in names:
        sys.modules.pop(name, None)


BOT = """
    import numpy as np
    from fastgen.players import evaluators

    def policy(candidates, offsets):
        return np.zeros(len(offsets) - 1, dtype=np.int64)

    def make():
        return evaluators.greedy(evaluators.random_network(hidden=4, seed=7))

    class Bot:
        def __init__(self):
            self.__name__ = "Bot"

        def __call__(self, candidates, offsets):
            return np.zeros(len(offsets) - 1, dtype=np.int64)

    def evaluate(boards):
        return np.full((boards.shape[0], 5), 0.25)

    def network():
        return evaluators.random_network(hidden=4, seed=7)

    def three(a, b, c):
        return None

    def broken():
        raise RuntimeError("no weights here")

    def not_a_bot():
        return 42

    class Holder:
        policy = staticmethod(policy)

    VALUE = 3
"""


# --------------------------------------------------------------------------- each form


def test_builtin_names_are_policies_the_core_plays():
    random, pub = specs.policy("random"), specs.policy("pubeval")
    assert isinstance(random, Policy) and isinstance(pub, Policy)
    assert (random.name, random.native, pub.name, pub.native) == ("random", "random", "pubeval", "pubeval")
    assert fastgen.duel("pubeval", "random", 40, seed=1).ppg == fastgen.duel("pubeval", "random", 40, seed=1,
                                                                            engine="python").ppg


def test_baseline_is_an_evaluator_and_its_greedy_player_a_policy():
    net = specs.evaluator("baseline")
    assert isinstance(net, CompiledNetwork) and net.n_outputs == 5 and net.__name__ == "baseline"
    assert net(BOARD[None]).shape == (1, 5)
    r = fastgen.duel("baseline", "random", 40, seed=2)
    assert r.a == "baseline"
    assert np.array_equal(r.winner, fastgen.duel(policies.baseline(), "random", 40, seed=2).winner)
    assert np.array_equal(r.winner, fastgen.duel(net, "random", 40, seed=2).winner)  # a network plays greedily
    t = fastgen.rollout_plays(BOARD, (3, 1), "baseline", plays=2, trials=36, seed=1)
    assert t.evaluator == "baseline" and len(t.rows) == 2
    assert fastgen.rollout_position(BOARD, "baseline", trials=36).rows[0].trials == 36
    assert fastgen.rollout(games=6, policy="baseline", seed=1).games == 6


def test_baseline_plays_the_best_play_of_a_float64_forward_pass():
    # The shipped network's player: the play best for the mover by a plain float64
    # forward pass of its weights (the opponent's cubeless equity after the play, the
    # lowest; a play bearing off the last checker scored exactly), on positions of random
    # games (bear-offs included). The network computes in float32, so a position whose two
    # best plays are within 1e-5 may go either way; they are counted (a few in a thousand).
    choose = policies.baseline()
    net = evaluators.baseline()
    rng = np.random.default_rng(4)
    boards, b = [], BOARD.copy()
    for _ in range(600):
        plays = fastgen.legal_plays(b, (int(rng.integers(1, 7)), int(rng.integers(1, 7))))
        after = plays.boards[int(rng.integers(len(plays)))]
        b = BOARD.copy() if after[1].sum() == 0 else fastgen.swap_sides(after)
        boards.append(b)
    dice = rng.integers(1, 7, size=(len(boards), 2)).astype(np.int8)
    batch = fastgen.plays_batch(np.stack(boards), dice)
    p = _oracle(net, fastgen.swap_sides(batch.boards))
    value = -(2.0 * p[:, 0] - 1.0 + p[:, 1] - p[:, 3] + p[:, 2] - p[:, 4])
    off = batch.boards[:, 1].reshape(len(batch.boards), -1).sum(axis=1) == 0
    loser = batch.boards[off, 0]
    value[off] = np.where(loser.sum(axis=1) < 15, 1.0, np.where(loser[:, 18:].sum(axis=1) > 0, 3.0, 2.0))
    got = choose(batch.boards, batch.offsets)
    near = 0
    for g, (lo, hi) in enumerate(zip(batch.offsets[:-1], batch.offsets[1:])):
        v = value[lo:hi]
        best = int(np.argmax(v))
        if got[g] != best:
            assert v[best] - v[got[g]] < 1e-5, (g, v[best], v[got[g]])
            near += 1
    assert near <= 6


def test_gnubg_specs_need_the_peers_extra():
    pytest.importorskip("gnubg_nn", reason="needs the peers extra: pip install '.[peers]'")
    assert specs.policy("gnubg:1").plies == 1 and specs.policy("gnubg-nn").plies == 0
    assert specs.policy("gnubg-nn:2").plies == 2 and specs.evaluator("gnubg-nn:1").name == "gnubg-nn:1"
    # at 0 ply, gnubg's nets compiled (gnubg-nn's package data holds the weights)
    assert isinstance(specs.evaluator("gnubg:0"), GnubgNetworks) and specs.evaluator("gnubg:0").__name__ == "gnubg:0"
    assert specs.policy("gnubg").name == "gnubg:0" and isinstance(specs.policy("gnubg").evaluator, GnubgNetworks)
    t = fastgen.rollout_plays(BOARD, (3, 1), "gnubg:0", plays=2, trials=36, truncate=4)
    assert t.evaluator == "gnubg:0"


def test_gnubg_engine_spec_starts_the_program_and_a_duel_closes_it():
    try:
        find_gnubg()
    except EngineError as exc:
        pytest.skip(f"needs the GNU Backgammon program (gnubg): {exc}")
    engine = specs.policy("gnubg-engine:0")
    try:
        assert isinstance(engine, GnubgEngine) and engine.plies == 0
    finally:
        engine.close()
    assert fastgen.duel("gnubg-engine", "pubeval", 2, seed=1).games == 2


#: The DeprecationWarning of a weights file in the old one hidden layer layout given as a spec.
OLD_LAYOUT = r"old one hidden layer layout .* deprecated and will be removed in fastgen 0\.3.* `fastgen convert-network "


def test_network_seed_and_weights_file(tmp_path):
    net = specs.evaluator("network:3")
    assert isinstance(net, ReferenceNetwork) and np.array_equal(net.w1, evaluators.random_network(seed=3).w1)
    small = evaluators.random_network(hidden=4, seed=1)
    path = tmp_path / "small.npz"
    small.compiled().save(path)  # the compiled layout: a compiled network, no warning
    loaded = specs.evaluator(str(path))
    assert isinstance(loaded, CompiledNetwork) and np.array_equal(loaded.weights[1], small.w2)
    assert loaded.__name__ == "small.npz"
    a = fastgen.duel(str(path), "pubeval", 20, seed=3)
    b = fastgen.duel(loaded, "pubeval", 20, seed=3)
    assert np.array_equal(a.winner, b.winner) and a.a == str(path)


def test_a_weights_file_in_the_old_layout_loads_as_before_with_a_warning(tmp_path):
    small = evaluators.random_network(hidden=4, seed=1)
    path = tmp_path / "small.npz"
    small.save(path)
    with pytest.warns(DeprecationWarning, match=OLD_LAYOUT) as record:
        loaded = specs.evaluator(str(path))
    assert record[0].filename == __file__  # at the user's line, where Python's default filters show it
    assert f"fastgen convert-network {path} NEW.npz" in str(record[0].message)
    assert isinstance(loaded, ReferenceNetwork) and loaded.digest() == small.digest() and loaded.__name__ == "small.npz"
    with pytest.warns(DeprecationWarning, match=OLD_LAYOUT) as record:
        a = fastgen.duel(str(path), "pubeval", 20, seed=3)  # through the duel's resolver too
    assert record[0].filename == __file__
    b = fastgen.duel(evaluators.greedy(small), "pubeval", 20, seed=3)
    assert np.array_equal(a.winner, b.winner) and a.a == str(path)
    two = evaluators.random_network(hidden=3, schemes=("tesauro198", "raw"), seed=2, outputs=3)
    two.save(tmp_path / "two.npz")
    with pytest.warns(DeprecationWarning, match=OLD_LAYOUT):
        again = specs.evaluator(str(tmp_path / "two.npz"))
    assert again.schemes == ("tesauro198", "raw") and again.outputs == 3
    assert np.array_equal(again(BOARD[None]), two(BOARD[None]))
    evaluators.convert_network_file(tmp_path / "two.npz", tmp_path / "two-compiled.npz")
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # converted: read with no warning
        converted = specs.evaluator(str(tmp_path / "two-compiled.npz"))
    assert isinstance(converted, CompiledNetwork) and converted.inputs == two.schemes and converted.n_outputs == 3


def test_module_callable_from_the_current_directory(bot_folder):
    name = bot_folder(BOT)
    fn = specs.policy(f"{name}:policy")
    assert fn.__name__ == "policy"
    assert specs.policy(f"{name}:Holder.policy").fn is fn.fn  # dotted attributes
    r = fastgen.duel(f"{name}:policy", "random", 20, seed=1)
    assert r.a == f"{name}:policy"
    assert fastgen.rollout(games=4, policy=f"{name}:policy", seed=1).games == 4
    t = fastgen.rollout_plays(BOARD, (3, 1), f"{name}:evaluate", plays=2, trials=36)
    assert t.evaluator == "evaluate"


def test_a_callable_taking_no_arguments_is_a_factory(bot_folder):
    name = bot_folder(BOT)
    made = specs.policy(f"{name}:make")
    assert made.__name__.startswith("greedy(")
    want = fastgen.duel(evaluators.greedy(evaluators.random_network(hidden=4, seed=7)), "random", 20, seed=4)
    assert np.array_equal(fastgen.duel(f"{name}:make", "random", 20, seed=4).winner, want.winner)
    assert specs.policy(f"{name}:Bot").__name__ == "Bot"  # a class whose constructor needs nothing
    assert isinstance(specs.evaluator(f"{name}:network"), ReferenceNetwork)
    # a factory that returns a network is a policy too: the network plays greedily
    assert np.array_equal(fastgen.duel(f"{name}:network", "random", 20, seed=4).winner, want.winner)


# --------------------------------------------------------------------------- errors


def test_errors_are_invalid_spec_errors_quoting_the_spec(bot_folder, tmp_path):
    name = bot_folder(BOT)
    assert issubclass(InvalidSpecError, InvalidArgumentError) and issubclass(InvalidSpecError, ValueError)
    assert issubclass(InvalidSpecError, FastgenError) and fastgen.InvalidSpecError is InvalidSpecError
    (tmp_path / "junk.npz").write_bytes(b"not a zip file")
    np.savez(tmp_path / "shapes.npz", w1=np.zeros((3, 2)), b1=np.zeros(2), w2=np.zeros((2, 5)), b2=np.zeros(5))
    cases = [
        ("policy", "nobody", "unknown policy 'nobody'"),
        ("policy", "", "must be a non-empty text"),
        ("policy", "gnubg:7", "plies must be 0 to 3"),
        ("policy", "no_such_module_zz:f", "no module named 'no_such_module_zz'"),
        ("policy", f"{name}:nope", "has no attribute 'nope'"),
        ("policy", f"{name}:Holder.nope", "has no attribute 'nope'"),
        ("policy", f"{name}:VALUE", "is not callable"),
        ("policy", f"{name}:three", "cannot be called as f(candidates, offsets)"),
        ("policy", f"{name}:evaluate", "cannot be called as f(candidates, offsets)"),
        ("policy", f"{name}:broken", "its factory raised RuntimeError: no weights here"),
        ("policy", f"{name}:not_a_bot", "its factory returned 42"),
        ("policy", "missing.npz", "no such weights file"),
        ("policy", str(tmp_path / "junk.npz"), "not an .npz archive"),
        ("evaluator", str(tmp_path / "shapes.npz"), "network weights must be"),  # the old layout (it warns)
        ("evaluator", "random", "is a policy, not an evaluator"),
        ("evaluator", "gnubg-engine:0", "is a policy"),
        ("evaluator", f"{name}:policy", "cannot be called as f(boards)"),
    ]
    for role, spec, words in cases:
        load = specs.policy if role == "policy" else specs.evaluator
        with pytest.raises(InvalidSpecError) as info, warnings.catch_warnings():
            warnings.filterwarnings("ignore", ".*" + OLD_LAYOUT, DeprecationWarning)
            load(spec)
        assert words in str(info.value), (spec, str(info.value))
        if spec:
            assert repr(spec) in str(info.value)


def test_the_api_entry_points_refuse_a_bad_spec_or_signature():
    with pytest.raises(InvalidSpecError, match="'nobody'"):
        fastgen.duel("pubeval", "nobody", 2)
    with pytest.raises(InvalidSpecError, match="'nobody'"):
        fastgen.rollout(games=2, policy="nobody")
    with pytest.raises(InvalidSpecError, match="'pubeval' is a policy"):
        fastgen.rollout_plays(BOARD, (3, 1), "pubeval")
    with pytest.raises(InvalidArgumentError, match=r"cannot be called as f\(candidates, offsets\)"):
        fastgen.duel(lambda boards: boards, "random", 2)
    with pytest.raises(InvalidArgumentError, match=r"cannot be called as f\(boards\)"):
        fastgen.rollout_position(BOARD, lambda a, b: a)


def test_check_reads_the_form_without_loading():
    assert specs.check("no_such_module_zz:f") == "no_such_module_zz:f"  # nothing imported
    assert "no_such_module_zz" not in sys.modules
    assert specs.check("gnubg-engine:4") == "gnubg-engine:4"
    for bad in ("nobody", "a b:c", "gnubg:-1", "mod:"):
        with pytest.raises(InvalidSpecError):
            specs.check(bad)


def test_envs_opponent_takes_a_spec():
    pytest.importorskip("gymnasium", reason="needs the rl extra: pip install '.[rl]'")
    from fastgen.envs import BackgammonEnv

    env = BackgammonEnv(opponent="baseline")
    obs, info = env.reset(seed=1)
    done = False
    while not done:
        obs, reward, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert reward in (-3.0, -2.0, -1.0, 1.0, 2.0, 3.0)
    with pytest.raises(fastgen.envs.InvalidEnvOptionError, match="unknown policy 'nobody'"):
        BackgammonEnv(opponent="nobody")


# --------------------------------------------------------------------------- the network


def _oracle(net, boards: np.ndarray) -> np.ndarray:
    """The forward pass of a one hidden layer network (numpy or compiled, sigmoid) in
    plain float64 numpy, outputs placed among the five, each gammon cut to its side's
    wins and each backgammon to its gammons."""
    if isinstance(net, CompiledNetwork):
        assert net.activation == "sigmoid" and len(net.weights) == 2
        schemes, (w1, w2), (b1, b2), outputs = net.inputs, net.weights, net.biases, net.n_outputs
    else:
        schemes, w1, b1, w2, b2, outputs = net.schemes, net.w1, net.b1, net.w2, net.b2, net.outputs
    x = np.concatenate([fastgen.encode(boards, s).astype(np.float64) for s in schemes], axis=1)
    w1, b1, w2, b2 = (np.asarray(a, dtype=np.float64) for a in (w1, b1, w2, b2))
    h = 1.0 / (1.0 + np.exp(-(x @ w1 + b1)))
    y = 1.0 / (1.0 + np.exp(-(h @ w2 + b2)))
    out = np.zeros((boards.shape[0], 5))
    out[:, [0, 1, 2, 3, 4] if outputs == 5 else [0, 1, 3]] = y
    out[:, 1] = np.minimum(out[:, 1], out[:, 0])
    out[:, 2] = np.minimum(out[:, 2], out[:, 1])
    out[:, 3] = np.minimum(out[:, 3], 1.0 - out[:, 0])
    out[:, 4] = np.minimum(out[:, 4], out[:, 3])
    return out


@pytest.mark.parametrize("outputs, schemes", [(5, ("tesauro198",)), (3, ("tesauro198",)), (5, ("tesauro198", "raw"))])
def test_network_matches_a_float64_forward_pass(outputs, schemes):
    net = evaluators.random_network(hidden=16, schemes=schemes, seed=5, outputs=outputs)
    batch = fastgen.plays_batch(np.stack([BOARD] * 4), np.array([[3, 1], [6, 6], [5, 2], [4, 4]], dtype=np.int8))
    got = net(batch.boards)
    assert got.dtype == np.float32 and got.shape == (batch.boards.shape[0], 5)
    np.testing.assert_allclose(got, _oracle(net, batch.boards), rtol=2e-6, atol=1e-7)
    assert evaluators.equity(got).shape == (batch.boards.shape[0],)


def test_baseline_matches_a_float64_forward_pass():
    net = evaluators.baseline()
    assert net.inputs == ("tesauro198", "contact") and net.sizes == (220, 128, 5)
    boards = random_play_positions(games=20, plies=60, seed=3)
    np.testing.assert_allclose(net(boards), _oracle(net, boards), rtol=1e-5, atol=2e-6)


def test_sigmoid_clips_instead_of_overflowing():
    x = np.array([-1e4, -40.0, 0.0, 40.0, 1e4], dtype=np.float32)
    with np.errstate(over="raise"):
        s = evaluators.sigmoid(x)
    assert s.dtype == np.float32 and s[2] == 0.5 and s[0] == s[1] > 0 and s[4] == s[3] == 1.0


def test_network_checks_its_weights():
    with pytest.raises(InvalidArgumentError, match="network weights must be"):
        ReferenceNetwork(np.zeros((198, 4)), np.zeros(4), np.zeros((4, 4)), np.zeros(4))
    with pytest.raises(InvalidArgumentError, match="outputs must be 5 or 3"):
        evaluators.random_network(hidden=2, outputs=2)


# --------------------------------------------------------------------------- the roles


def test_a_policy_where_an_evaluator_is_wanted_is_a_clear_error_naming_both():
    """What a new user tries: the baseline's player given to lookahead (which wants the
    evaluator). It fails at once, at the front door, naming what was given and what was
    wanted, and not as a TypeError from deep inside a duel."""
    with pytest.raises(InvalidArgumentError, match=r"lookahead's evaluator <policy baseline> is a policy .* "
                                                   r"where an evaluator is wanted"):
        policies.lookahead(policies.baseline(), plies=1)
    for call in (lambda p: evaluators.greedy(p), lambda p: policies.cube_policy(p),
                 lambda p: fastgen.rollout_plays(BOARD, (3, 1), p, plays=2, trials=36),
                 lambda p: specs.evaluator(p)):
        with pytest.raises(FastgenError, match="is a policy"):
            call(policies.baseline())
    with pytest.raises(InvalidSpecError, match="'pubeval' is a policy, not an evaluator"):
        specs.evaluator("pubeval")


def test_an_evaluator_function_where_a_policy_is_wanted_and_the_reverse_are_named():
    def evaluate(boards):
        return np.full((boards.shape[0], 5), 0.2)

    def choose(candidates, offsets):
        return np.zeros(len(offsets) - 1, dtype=np.int64)

    with pytest.raises(InvalidArgumentError, match=r"cannot be called as f\(candidates, offsets\).*looks like an "
                                                   r"evaluator"):
        specs.policy(evaluate)
    with pytest.raises(InvalidArgumentError, match=r"cannot be called as f\(boards\).*looks like a policy"):
        specs.evaluator(choose)
    cube = policies.cube_policy(evaluators.baseline())
    with pytest.raises(InvalidArgumentError, match="is a cube player where a policy is wanted"):
        specs.policy(cube)
    with pytest.raises(InvalidArgumentError, match="is a cube player where an evaluator is wanted"):
        specs.evaluator(cube)


def test_every_resolved_player_is_typed_once():
    """The resolver's answers are the typed players; resolving one again gives it back."""
    for spec in ("random", "pubeval", "baseline", "network:2"):
        p = specs.policy(spec)
        assert isinstance(p, Policy) and specs.policy(p) is p
    for spec in ("baseline", "network:2"):
        e = specs.evaluator(spec)
        assert isinstance(e, Evaluator) and specs.evaluator(e) is e
    c = specs.cube_player("baseline")
    assert isinstance(c, CubePlayer) and specs.cube_player(c) is c and isinstance(c.chequer, Policy)
    wrapped = specs.evaluator(lambda boards: np.full((boards.shape[0], 5), 0.2))
    assert isinstance(wrapped, Evaluator) and not wrapped.trusted
