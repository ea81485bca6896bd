#!/usr/bin/env python3
"""Environment throughput of isobar.envs and the Python layer's overhead over the C API.

    ISOBAR_LIBRARY=build-release/libisobar.so PYTHONPATH=python \\
        python3 bench/bench_python.py [--worlds 1,4,16,64,256,1024,4096] [--reps 3]

For each task (ReachEnv, LiftEnv) and world count, two identical environments are reset with
the same seed and fed the same random actions (drawn beforehand):
  env   calls env.step(actions): action checks and mapping into the sim's target array,
        frame_skip sim steps, observations, rewards, flags, counters, infos;
  bare  writes the same targets into its sim's target array (untimed) and calls
        sim.step(frame_skip): the C API's cost of the same simulated work.
Both see bitwise the same states (the same targets from the same start), so the difference
is the Python layer alone: overhead % = (env − bare) / env. Their steps are interleaved, so a
change of load on the host reaches both. The timed steps stay inside the first episode (no
autoreset: its masked reset is timed apart, as `reset ms`, once per episode of all worlds).
Where the host's load moves by more than the overhead between the two sims' steps (the largest
world counts), the overhead is also taken within the env's own calls: env.step's time minus
the time its sim.step took inside it (`inner_*` columns; no second sim involved).
Each repetition starts from the same reset; figures are medians over repetitions of the
per-step mean. Threads: 2 (--threads), OMP_WAIT_POLICY=PASSIVE unless set (see
examples/python/train_lift.py). Writes bench/results/python.csv and prints a Markdown table.
"""
import argparse
import csv
import os
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402

from isobar.envs import LiftEnv, ReachEnv  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def timed_steps(worlds):
    """Timed environment steps per repetition: fewer at large world counts."""
    return int(max(5, min(40, 20000 // worlds)))


def measure(cls, worlds, threads, reps, warmup=2):
    """Per-step seconds of env.step and of the bare sim steps, medians over repetitions."""
    env = cls(worlds, threads=threads)
    bare = cls(worlds, threads=threads)
    steps = timed_steps(worlds)
    assert warmup + steps < env.max_episode_steps  # no autoreset inside the timed steps
    rng = np.random.default_rng(0)
    acts = rng.uniform(-1, 1, (warmup + steps, worlds, env.single_action_space.shape[0]))
    inner = [0.0]
    sim_step = env.sim.step

    def step_timed(n=1):
        """The env's sim.step, adding its time to inner[0]."""
        t = time.perf_counter()
        sim_step(n)
        inner[0] += time.perf_counter() - t

    env.sim.step = step_timed  # the env's own sim steps, timed inside its step
    t_env, t_bare, t_reset, t_inner = [], [], [], []
    for _ in range(reps):
        t = time.perf_counter()
        env.reset(seed=1)
        t_reset.append(time.perf_counter() - t)
        bare.reset(seed=1)
        se = sb = 0.0
        for k in range(warmup + steps):
            if k == warmup:
                inner[0] = 0.0
            bare._apply_action(bare._check_actions(acts[k]))
            t0 = time.perf_counter()
            env.step(acts[k])
            t1 = time.perf_counter()
            bare.sim.step(bare.frame_skip)
            t2 = time.perf_counter()
            if k >= warmup:
                se += t1 - t0
                sb += t2 - t1
        assert np.array_equal(env.sim.q, bare.sim.q)  # the same simulated work
        t_env.append(se / steps)
        t_bare.append(sb / steps)
        t_inner.append((se - inner[0]) / steps)
    row = {"task": cls.__name__, "worlds": worlds, "threads": threads, "frame_skip": env.frame_skip,
           "timed_steps": steps, "reps": reps, "env_ms": 1e3 * np.median(t_env),
           "bare_ms": 1e3 * np.median(t_bare), "reset_ms": 1e3 * np.median(t_reset)}
    row["env_steps_per_s"] = 1e3 / row["env_ms"]
    row["transitions_per_s"] = worlds * row["env_steps_per_s"]
    row["world_sim_steps_per_s"] = row["transitions_per_s"] * env.frame_skip
    row["overhead_ms"] = row["env_ms"] - row["bare_ms"]
    row["overhead_pct"] = 100 * row["overhead_ms"] / row["env_ms"]
    row["inner_overhead_ms"] = 1e3 * np.median(t_inner)
    row["inner_overhead_pct"] = 100 * row["inner_overhead_ms"] / row["env_ms"]
    env.close()
    bare.close()
    return row


def main():
    """Parse the command line, run, write the results."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--worlds", default="1,4,16,64,256,1024,4096")
    ap.add_argument("--tasks", default="reach,lift")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "python.csv"))
    args = ap.parse_args()
    classes = {"reach": ReachEnv, "lift": LiftEnv}
    rows = []
    load0 = os.getloadavg()[0]
    print("| task | worlds | env step ms | bare sim ms | overhead ms | overhead % | inner overhead ms | inner % "
          "| transitions/s | world sim steps/s | reset ms |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for task in args.tasks.split(","):
        for n in (int(w) for w in args.worlds.split(",")):
            r = measure(classes[task], n, args.threads, args.reps)
            rows.append(r)
            print(f"| {r['task']} | {n} | {r['env_ms']:.3f} | {r['bare_ms']:.3f} | {r['overhead_ms']:.3f} | "
                  f"{r['overhead_pct']:.1f} | {r['inner_overhead_ms']:.3f} | {r['inner_overhead_pct']:.2f} | "
                  f"{r['transitions_per_s']:,.0f} | {r['world_sim_steps_per_s']:,.0f} | {r['reset_ms']:.2f} |", flush=True)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"load average (1 min) at start {load0:.2f}, at end {os.getloadavg()[0]:.2f}; "
          f"OMP_WAIT_POLICY={os.environ['OMP_WAIT_POLICY']}; rows in {args.out}")


if __name__ == "__main__":
    main()
