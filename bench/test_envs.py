"""RL environment throughput with random legal actions, against pgx and OpenSpiel in the
same run:

* ``envs-steps``: :class:`fastgen.envs.VectorBackgammon` with 1,024 games in micro-action
  mode (one checker step per action, the same unit as pgx's actions), against pgx's
  backgammon on CPU (jit + vmap over 1,024 games, ``lax.scan`` over the steps of a round,
  auto-reset, actions drawn from the legal mask) and OpenSpiel's backgammon (random legal
  actions in a Python loop; an OpenSpiel action moves one or two checkers);
* ``envs-turns``: the same in afterstate mode (one action per turn), against the turns
  pgx and OpenSpiel play in those runs (pgx: changes of the player to move; OpenSpiel:
  dice rolls).

``extra_info["positions"]`` holds the steps (or turns) of one round, so the ratios
printed at the end are per step (per turn). Every side returns new observation and
mask arrays per step (fastgen recycles the memory of those the caller dropped).
Needs the ``rl`` extra; pgx (``pip install ".[pgx]"``, pulls in JAX) and OpenSpiel
(``pip install open_spiel``) are skipped with the reason when absent.
"""

from __future__ import annotations

import random

import pytest

pytest.importorskip("gymnasium", reason="gymnasium not installed: pip install '.[rl]'")

from fastgen.envs import VectorBackgammon  # noqa: E402

GAMES = 1024
STEPS = 100  # vector steps per round


def _fastgen_round(env, steps=STEPS):
    for _ in range(steps):
        env.step(env.sample_actions())


@pytest.mark.benchmark(group="envs-steps")
def test_envs_vector_micro(benchmark):
    env = VectorBackgammon(GAMES, action_mode="micro", observation="tesauro198")
    env.reset(seed=1)
    _fastgen_round(env, 20)  # warm up: memory of the buffers touched once
    benchmark.extra_info["positions"] = GAMES * STEPS
    benchmark.pedantic(_fastgen_round, args=(env,), rounds=5)


@pytest.mark.benchmark(group="envs-turns")
def test_envs_vector_afterstate(benchmark):
    env = VectorBackgammon(GAMES, action_mode="afterstate", observation="tesauro198")
    env.reset(seed=1)
    _fastgen_round(env, 20)
    benchmark.extra_info["positions"] = GAMES * STEPS
    benchmark.pedantic(_fastgen_round, args=(env,), rounds=5)


@pytest.fixture(scope="module")
def pgx_runner():
    pgx = pytest.importorskip("pgx", reason="pgx not installed: pip install '.[pgx]' (pulls in JAX)")
    import jax
    import jax.numpy as jnp
    from pgx.experimental import auto_reset

    env = pgx.make("backgammon")
    init = jax.jit(jax.vmap(env.init))
    step = jax.vmap(auto_reset(env.step, env.init))

    @jax.jit
    def run(state, key):
        def body(carry, _):
            state, key, steps, turns = carry
            key, k1, k2 = jax.random.split(key, 3)
            logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
            action = jax.random.categorical(k1, logits, axis=-1)
            before = state.current_player
            state = step(state, action, jax.random.split(k2, GAMES))
            steps = steps + GAMES
            turns = turns + jnp.sum(state.current_player != before)
            return (state, key, steps, turns), None

        (state, key, steps, turns), _ = jax.lax.scan(body, (state, key, 0, 0), None, length=STEPS)
        return state, key, steps, turns

    key = jax.random.PRNGKey(0)
    state = init(jax.random.split(key, GAMES))
    holder = {"state": state, "key": key}

    def one_round():
        state, key, steps, turns = run(holder["state"], holder["key"])
        state.observation.block_until_ready()
        holder["state"], holder["key"] = state, key
        return int(steps), int(turns)

    one_round()  # compile
    for _ in range(3):  # leave the opening positions behind
        one_round()
    return one_round


@pytest.mark.benchmark(group="envs-steps")
def test_envs_pgx_steps(benchmark, pgx_runner):
    steps, _ = pgx_runner()
    benchmark.extra_info["positions"] = steps
    benchmark.pedantic(pgx_runner, rounds=5)


@pytest.mark.benchmark(group="envs-turns")
def test_envs_pgx_turns(benchmark, pgx_runner):
    turns = [pgx_runner()[1] for _ in range(5)]
    benchmark.extra_info["positions"] = sum(turns) / len(turns)
    benchmark.pedantic(pgx_runner, rounds=5)


@pytest.fixture(scope="module")
def openspiel_runner():
    pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel not installed: pip install open_spiel")
    game = pyspiel.load_game("backgammon")
    rng = random.Random(0)
    holder = {"state": game.new_initial_state()}

    def one_round(decisions=5000):
        state = holder["state"]
        steps = turns = 0
        while steps < decisions:
            if state.is_terminal():
                state = game.new_initial_state()
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
                turns += 1
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                steps += 1
        holder["state"] = state
        return steps, turns

    return one_round


@pytest.mark.benchmark(group="envs-steps")
def test_envs_openspiel_steps(benchmark, openspiel_runner):
    benchmark.extra_info["positions"] = openspiel_runner()[0]
    benchmark.pedantic(openspiel_runner, rounds=3)


@pytest.mark.benchmark(group="envs-turns")
def test_envs_openspiel_turns(benchmark, openspiel_runner):
    turns = [openspiel_runner()[1] for _ in range(3)]
    benchmark.extra_info["positions"] = sum(turns) / len(turns)
    benchmark.pedantic(openspiel_runner, rounds=3)
