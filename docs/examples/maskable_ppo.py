"""MaskablePPO (sb3-contrib) on fastgen's micro-action environment, as a new user runs it.

Default settings throughout: the agent plays player 0 of ``BackgammonEnv`` in micro mode
against the random opponent; MaskablePPO reads the legal actions from the
environment's ``action_masks()``. The script prints the win rate against the random
opponent before and after training (greedy actions, fixed seeds).

    pip install ".[rl]" sb3-contrib        # sb3-contrib brings stable-baselines3 and PyTorch
    python docs/examples/maskable_ppo.py --steps 50000 --games 1000

Not part of the test suite or of the docs build (it needs PyTorch and minutes of CPU).
"""

import argparse

from sb3_contrib import MaskablePPO

from fastgen.envs import BackgammonEnv


def win_rate(model: MaskablePPO, games: int, seed: int) -> float:
    """The share of *games* against the random opponent that *model* wins."""
    env = BackgammonEnv(opponent="random", action_mode="micro")
    wins = 0
    for g in range(games):
        obs, info = env.reset(seed=seed + g)
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, reward, terminated, truncated, info = env.step(int(action))
            done = terminated or truncated
        wins += reward > 0
    return wins / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50_000, help="training steps (default 50,000)")
    parser.add_argument("--games", type=int, default=1_000, help="evaluation games (default 1,000)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    env = BackgammonEnv(opponent="random", action_mode="micro")
    model = MaskablePPO("MlpPolicy", env, seed=args.seed, verbose=0)
    print(f"before training: {win_rate(model, args.games, 10**6):.1%} won against random")
    model.learn(total_timesteps=args.steps)
    print(f"after {args.steps:,} steps: {win_rate(model, args.games, 10**6):.1%} won against random")


if __name__ == "__main__":
    main()
