#!/usr/bin/env bash
# Every CPU benchmark of bench/, one after another (never two at once: they share the cores),
# writing CSVs under bench/results/ and the free-body plot bench/throughput.png. The numbers in
# bench/RESULTS.md come from this script. Usage: bash bench/run_all.sh [reps]
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-5}
source scripts/env.sh
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DISO_TESTS=OFF >/dev/null
cmake --build build-release -j 2 >/dev/null
mkdir -p bench/results
{ lscpu | head -20; gcc --version | head -1; } >bench/results/machine.txt
REPS=$reps bash bench/throughput.sh build-release | tee bench/results/throughput.md
cp bench/out/throughput.csv bench/results/throughput.csv
./build-release/bench_surfaces 2 "$reps" | tee bench/results/surfaces.csv
./build-release/bench_contact 2 "$reps" 4096 | tee bench/results/contact.csv
./build-release/bench_rest "$reps" 20000 | tee bench/results/rest.csv
./build-release/bench_tactile 1 "$reps" 1024 | tee bench/results/tactile.csv
bash bench/memory.sh build-release/isobar | tee bench/results/memory.csv
