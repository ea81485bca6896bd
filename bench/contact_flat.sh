#!/usr/bin/env bash
# Per-world cost of the contact scenes from 256 to 16384 worlds (two threads): bench/compare's
# iso_probe --time steps N worlds, W untimed steps first (first-touch page faults, and the box
# settles onto its contact), then S timed ones; REPS repetitions with the world counts
# interleaved; prints a markdown table of medians (µs per world-step) and the spread of each
# scene's medians over the counts (the target: flat within ±20 %).
#   bash bench/contact_flat.sh [probe=bench/compare/out/iso_probe]
# The probe is built by bench/compare/run.sh (or by hand: see there).
set -euo pipefail
cd "$(dirname "$0")/.."
probe=${1:-bench/compare/out/iso_probe}
reps=${REPS:-3}
threads=${THREADS:-2}
# scene file, warm-up steps, timed steps
scenes=("examples/compliant_box_on_plane.sdf 20 40" "examples/stack_of_five_boxes.sdf 2 4")
counts=(256 1024 4096 16384)
out=$(mktemp)
for rep in $(seq 1 "$reps"); do
  for s in "${scenes[@]}"; do
    read -r file warm steps <<<"$s"
    for n in "${counts[@]}"; do
      line=$("$probe" "$file" --time --worlds "$n" --threads "$threads" --warmup "$warm" --steps "$steps" | tail -n 1)
      python3 - "$line" "$file" "$n" "$steps" >>"$out" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
print(sys.argv[2], sys.argv[3], 1e6 * d["wall_s"] / (int(sys.argv[3]) * int(sys.argv[4])))
PY
    done
  done
done
python3 - "$out" "$threads" "$reps" <<'PY'
import collections, statistics, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f, n, us = line.split()
    rows[(f, int(n))].append(float(us))
files = sorted({f for f, _ in rows})
counts = sorted({n for _, n in rows})
print(f"µs per world-step, {sys.argv[2]} threads, median of {sys.argv[3]}")
print()
print("| scene | " + " | ".join(str(n) for n in counts) + " | max / min |")
print("|---|" + "---:|" * (len(counts) + 1))
for f in files:
    med = [statistics.median(rows[(f, n)]) for n in counts]
    print(f"| {f} | " + " | ".join(f"{m:.2f}" for m in med) + f" | {max(med) / min(med):.2f} |")
PY
rm -f "$out"
