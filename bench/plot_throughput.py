"""Medians of bench/out/throughput.csv: a markdown table on stdout and a PNG plot."""
import csv
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

rows = list(csv.DictReader(open(sys.argv[1])))
by = {}
for r in rows:
    by.setdefault(int(r["worlds"]), []).append(float(r["world_steps_per_s"]))
worlds = sorted(by)
med = [statistics.median(by[n]) for n in worlds]
ns = [1e9 / m for m in med]
threads = rows[0]["threads"]

print(f"| worlds | median world-steps/s | ns per world-step | runs |")
print(f"|---:|---:|---:|---:|")
for n, m, t in zip(worlds, med, ns):
    print(f"| {n} | {m:,.0f} | {t:.1f} | {len(by[n])} |")
flat = [t for n, t in zip(worlds, ns) if 256 <= n <= 16384]
if flat:
    print(f"\ncost per world-step from 256 to 16384 worlds: {min(flat):.1f} to {max(flat):.1f} ns "
          f"(spread {100 * (max(flat) / min(flat) - 1):.1f}%)")

fig, ax = plt.subplots(1, 2, figsize=(10, 4))
ax[0].loglog(worlds, med, "o-")
ax[0].axhline(5e6, color="r", ls="--", label="target 5M at 16384 worlds")
ax[0].set_xlabel("worlds")
ax[0].set_ylabel("world-steps per second")
ax[0].set_title(f"free bodies, CPU, {threads} threads (median)")
ax[0].legend()
ax[1].semilogx(worlds, ns, "o-")
ax[1].set_xlabel("worlds")
ax[1].set_ylabel("ns per world-step")
ax[1].set_ylim(bottom=0)
ax[1].set_title("cost per world-step")
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=100)
