"""Random-policy self-play throughput (turns per second), with in-run baselines:

* fastgen native (whole games in the core) and the batched Python loop over plays_batch;
* a loop over GNU Backgammon's generator (gnubg_nn.moves) with a uniform random choice;
* pgx's backgammon environment under jit+vmap (1,024 games), when pgx is installed
  (note: pgx does not enforce the maximum-dice rule).

Group ``pubeval``: pubeval self-play inside the core (``rollout(policy="pubeval")``) and
``pubeval_best`` over the positions of pubeval games, against GNU Backgammon's pubeval
player called once per position and roll (``gnubg_nn.pub_best_move``, results dropped)
on the same positions.

``benchmark.extra_info["positions"]`` holds the turns played per round, so the summary
ratios printed by conftest.py are per turn.
"""

import random

import numpy as np

import pytest

import fastgen

GAMES = 4_000


def _turns(result):
    return int(result.turns.sum())


@pytest.mark.benchmark(group="rollout")
@pytest.mark.parametrize("threads", [1, 2])
def test_rollout_native(benchmark, threads):
    turns = _turns(fastgen.rollout(games=GAMES, seed=1))
    benchmark.extra_info["positions"] = turns
    benchmark.extra_info["threads"] = threads
    benchmark(fastgen.rollout, games=GAMES, seed=1, threads=threads)


@pytest.mark.benchmark(group="rollout")
def test_rollout_python_loop(benchmark):
    turns = _turns(fastgen.rollout(games=GAMES, seed=1))
    benchmark.extra_info["positions"] = turns
    benchmark(fastgen.rollout, games=GAMES, seed=1, engine="python", batch_size=GAMES)


@pytest.mark.benchmark(group="rollout")
def test_rollout_gnubg_nn(benchmark, gnubg):
    start = [list(r) for r in fastgen.STARTING_BOARD.tolist()]

    def games(n=300):
        rng = random.Random(1)
        total = 0
        for _ in range(n):
            board, turn = start, 0
            while True:
                keys = gnubg.moves(board, rng.randint(1, 6), rng.randint(1, 6))
                turn += 1
                if keys:
                    after = gnubg.board_from_position_key(rng.choice(keys))
                    if not any(after[1]):
                        break
                    board = [list(after[1]), list(after[0])]
                else:
                    board = [board[1], board[0]]
            total += turn
        return total

    benchmark.extra_info["positions"] = games()
    benchmark.pedantic(games, rounds=3)


@pytest.mark.benchmark(group="rollout")
def test_rollout_pgx(benchmark):
    pgx = pytest.importorskip("pgx", reason="pgx not installed: pip install pgx (pulls in JAX)")
    import jax
    import jax.numpy as jnp

    env = pgx.make("backgammon")
    batch, steps = 1024, 200
    init = jax.jit(jax.vmap(env.init))
    step = jax.jit(jax.vmap(env.step))

    def run(key):
        keys = jax.random.split(key, batch)
        state = init(keys)
        turns = jnp.zeros((), dtype=jnp.int32)
        for i in range(steps):
            key, sub = jax.random.split(key)
            logits = jnp.log(state.legal_action_mask.astype(jnp.float32))
            action = jax.random.categorical(sub, logits, axis=-1)
            before = state.current_player
            state = step(state, action, jax.random.split(sub, batch))
            # a turn ends when the player to move changes (pgx steps are single checker moves)
            turns = turns + jnp.sum((state.current_player != before) & ~state.terminated)
        return int(turns)

    run(jax.random.PRNGKey(0))  # compile
    benchmark.extra_info["positions"] = run(jax.random.PRNGKey(1))
    benchmark.pedantic(run, args=(jax.random.PRNGKey(1),), rounds=3)


# ---------------------------------------------------------------- pubeval
PUBEVAL_GAMES = 2_000


@pytest.fixture(scope="module")
def pubeval_positions():
    """20,000 (board, dice) met in pubeval self-play (seed 1)."""
    from fastgen.cli.workload import random_game_positions

    return random_game_positions(20_000, seed=1, policy="pubeval")


@pytest.mark.benchmark(group="pubeval")
@pytest.mark.parametrize("threads", [1, 2])
def test_pubeval_rollout_native(benchmark, threads):
    turns = _turns(fastgen.rollout(games=PUBEVAL_GAMES, policy="pubeval", seed=1))
    benchmark.extra_info["positions"] = turns
    benchmark.extra_info["threads"] = threads
    benchmark(fastgen.rollout, games=PUBEVAL_GAMES, policy="pubeval", seed=1, threads=threads)


@pytest.mark.benchmark(group="pubeval")
def test_pubeval_best_batch(benchmark, pubeval_positions):
    boards, dice = pubeval_positions
    benchmark.extra_info["positions"] = len(boards)
    benchmark(fastgen.pubeval_best, boards, dice)


@pytest.mark.benchmark(group="pubeval")
def test_pubeval_gnubg_nn(benchmark, gnubg, pubeval_positions):
    boards, dice = pubeval_positions
    items = [(b.tolist(), int(d[0]), int(d[1])) for b, d in zip(boards, dice)]
    best = gnubg.pub_best_move

    def loop():
        for b, d1, d2 in items:
            best(b, d1, d2)

    benchmark.extra_info["positions"] = len(items)
    benchmark.pedantic(loop, rounds=5)


def _first_play(cands, offsets):
    """The trivial user policy: always the first candidate."""
    return np.zeros(len(offsets) - 1, dtype=np.int64)


@pytest.mark.benchmark(group="policy-overhead")
@pytest.mark.parametrize("batch", [256, 1024, 4096, 16384])
def test_user_policy_overhead(benchmark, batch):
    """rollout(policy=callable): the share of the run spent outside plays_batch and the
    policy (the result's ``timings["other"]``: dice, picking and turning over the chosen
    positions, refilling finished games), median over the rounds; printed at the end."""
    games = max(4 * batch, 4_000)
    shares = []

    def run():
        r = fastgen.rollout(games=games, seed=1, policy=_first_play, batch_size=batch)
        shares.append(r.timings["other"] / r.seconds)
        return r

    benchmark.extra_info["overhead"] = "user-policy"
    benchmark.pedantic(run, rounds=5, warmup_rounds=1)
    shares = shares[1:] or shares  # the warm-up round (none when benchmarks are disabled)
    benchmark.extra_info["other_share"] = sorted(shares)[len(shares) // 2]
