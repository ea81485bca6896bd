#!/usr/bin/env python3
"""Learn to lift the compliant cube (isobar.envs.LiftEnv) with the cross-entropy method, NumPy only.

The policy is linear with a tanh squashing, a = tanh(W·(o / s) + b), over the 22 observations
(o / s: each observation divided by its spread in the first iteration's rollouts, fixed from
then on): 3 × 23 = 69 parameters. Each iteration draws a population of parameter vectors from
a diagonal Gaussian, runs every candidate as one world of a single LiftEnv (all worlds in one
sim, one episode of 1.5 s each), and refits the Gaussian to the elite (the best 1/8 by return).
World 0 always runs the current mean, so the curve shows the policy that is being learnt as
well as the population.

    python examples/python/train_lift.py               # 128 worlds, 20 iterations
    python examples/python/train_lift.py --worlds 64 --iterations 10 --out lift_small

Writes <out>.csv (one row per iteration) and, when matplotlib is installed, <out>.png (the
learning curve); prints one line per iteration.
"""
import argparse
import csv
import os
import time

# Idle OpenMP threads sleep instead of spinning (read when the library loads): on a machine
# shared with other work a spinning barrier waits out whole time slices of a descheduled
# thread, which made steps on two threads ten times slower than on one in our runs.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402

from isobar.envs import LiftEnv  # noqa: E402


def act(theta, obs, scale, adim):
    """Actions of every world's candidate: theta (worlds, adim·(odim+1)), obs (worlds, odim)."""
    n, odim = obs.shape
    w = theta[:, :adim * odim].reshape(n, adim, odim)
    b = theta[:, adim * odim:]
    return np.tanh(np.einsum("nij,nj->ni", w, obs / scale) + b)


def episode(env, theta, scale, seed):
    """Run one episode of every world with its own candidate; (returns, success, obs seen)."""
    obs, _ = env.reset(seed=seed)
    adim = env.single_action_space.shape[0]
    seen = [obs]
    returns = np.zeros(env.num_envs)
    success = np.zeros(env.num_envs, bool)
    alive = np.ones(env.num_envs, bool)  # autoreset is off: a world that ended stops counting
    for _ in range(env.max_episode_steps):
        obs, rew, term, trunc, info = env.step(act(theta, obs, scale, adim))
        returns += np.where(alive, rew, 0.0)
        success |= info["is_success"] & alive
        alive &= ~(term | trunc)
        seen.append(obs)
    return returns, success, np.concatenate(seen)


def plot(rows, worlds, out):
    """The learning curve of the iterations' rows as <out>.png (needs matplotlib)."""
    try:
        import matplotlib
        import matplotlib.ticker
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot (pip install matplotlib)")
        return
    it = [int(r["iteration"]) for r in rows]
    rows = [{k: float(v) for k, v in r.items()} for r in rows]
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    ax.plot(it, [r["mean_policy_return"] for r in rows], "o-", label="mean policy (world 0)")
    ax.plot(it, [r["population_mean_return"] for r in rows], "s-", label="population mean")
    ax.plot(it, [r["elite_mean_return"] for r in rows], "^-", label="elite mean")
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    ax.set_xlabel("CEM iteration")
    ax.set_ylabel("episode return")
    ax2 = ax.twinx()
    ax2.plot(it, [100 * r["population_success"] for r in rows], "k:", label="population lifted (%)")
    ax2.set_ylabel("population that lifted the cube 5 cm (%)")
    ax2.set_ylim(0, 100)
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, loc="lower right", fontsize=8)
    ax.set_title(f"LiftEnv, CEM over a linear policy: {worlds} worlds, {rows[-1]['seconds']:.0f} s")
    fig.tight_layout()
    fig.savefig(out + ".png", dpi=100)
    print(f"learning curve in {out}.png")


def main():
    """Parse the command line, run, write the results."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--worlds", type=int, default=128, help="population size (one world each)")
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--elite", type=float, default=0.125, help="elite fraction")
    ap.add_argument("--sigma", type=float, default=0.5, help="initial standard deviation")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="train_lift", help="output path without extension")
    args = ap.parse_args()

    env = LiftEnv(args.worlds, threads=args.threads, autoreset_mode="Disabled")
    odim = env.single_observation_space.shape[0]
    adim = env.single_action_space.shape[0]
    dim = adim * (odim + 1)
    rng = np.random.default_rng(args.seed)
    mean, std = np.zeros(dim), np.full(dim, args.sigma)
    n_elite = max(2, int(round(args.elite * args.worlds)))
    scale = None
    rows = []
    t0 = time.perf_counter()
    for it in range(args.iterations):
        theta = mean + std * rng.standard_normal((args.worlds, dim))
        theta[0] = mean
        if scale is None:  # observation spreads from a first rollout of the initial population
            _, _, seen = episode(env, theta, np.ones(odim), args.seed)
            scale = seen.std(axis=0) + 1e-3
        returns, success, _ = episode(env, theta, scale, args.seed + 1 + it)
        elite = np.argsort(-returns, kind="stable")[:n_elite]
        mean = theta[elite].mean(axis=0)
        # a small floor on the spread keeps the search from collapsing on a lucky few episodes
        std = np.sqrt(theta[elite].var(axis=0) + 1e-4)
        row = {"iteration": it, "seconds": time.perf_counter() - t0,
               "mean_policy_return": returns[0], "population_mean_return": returns.mean(),
               "elite_mean_return": returns[elite].mean(), "best_return": returns.max(),
               "population_success": success.mean(), "mean_policy_success": float(success[0])}
        rows.append(row)
        print(f"iter {it:2d}  {row['seconds']:6.1f} s  return: mean policy {row['mean_policy_return']:7.1f}"
              f"  population {row['population_mean_return']:7.1f}  elite {row['elite_mean_return']:7.1f}"
              f"  lifted: {100 * row['population_success']:5.1f} % of the population"
              f"{', mean policy too' if success[0] else ''}", flush=True)

    with open(args.out + ".csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    steps = args.iterations * env.max_episode_steps * env.frame_skip * args.worlds
    print(f"{len(rows)} iterations in {rows[-1]['seconds']:.1f} s ({steps} simulated world-steps "
          f"after the normalisation rollout); curve data in {args.out}.csv")
    plot(rows, args.worlds, args.out)


if __name__ == "__main__":
    main()
