#!/usr/bin/env bash
# Free-body throughput on the CPU over 1 to 16384 worlds: runs `isobar bench` (single-body
# worlds, 2 threads unless THREADS is set) REPS times per world count, interleaving the
# counts, and writes bench/out/throughput.csv, bench/throughput.png and a markdown table of
# medians on stdout. Usage: bash bench/throughput.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-release}
threads=${THREADS:-2}
reps=${REPS:-5}
if [[ ! -x $build/isobar ]]; then
  source scripts/env.sh
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DISO_TESTS=OFF >/dev/null
  cmake --build "$build" -j 2 --target isobar >/dev/null
fi
mkdir -p bench/out
csv=bench/out/throughput.csv
echo "worlds,threads,steps,rep,wall_s,world_steps_per_s,ns_per_world_step" >"$csv"
counts=(1 4 16 64 256 1024 4096 16384)
for rep in $(seq 1 "$reps"); do
  for n in "${counts[@]}"; do
    # about 2e7 world-steps per run (at least 200 steps), so each run lasts ~1 s at the target
    steps=$(( 20000000 / n )); (( steps < 200 )) && steps=200; (( steps > 200000 )) && steps=200000
    line=$("$build/isobar" bench --scene free --worlds "$n" --steps "$steps" --threads "$threads" --backend cpu --quiet | tail -n 1)
    python3 - "$line" "$n" "$threads" "$steps" "$rep" >>"$csv" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
print(f"{sys.argv[2]},{sys.argv[3]},{sys.argv[4]},{sys.argv[5]},{d['wall_s']},{d['world_steps_per_s']},{d['ns_per_world_step']}")
PY
  done
done
PY=python3; python3 -c "import matplotlib" 2>/dev/null || PY=/usr/bin/python3
"$PY" bench/plot_throughput.py "$csv" bench/throughput.png
