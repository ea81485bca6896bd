#!/usr/bin/env bash
# Build the libFuzzer harnesses (clang, ASan+UBSan; build-fuzz/) and run each for SECONDS
# seconds (default 300; CI passes 15), starting from its seed corpus in fuzz/corpus/<name>/.
# New inputs libFuzzer finds go to build-fuzz/corpus/<name>/, not into the repository; a crash
# leaves build-fuzz/crash-* (or leak-*, timeout-*) and fails the script. Copy a crash into
# fuzz/corpus/<name>/ once it is fixed, so the normal test suite replays it.
#
#   fuzz/run.sh [SECONDS] [NAME...]      NAME: obj vtk gltf sdf urdf (default all)
#
# ISO_FUZZ_SEED=N fixes libFuzzer's seed (default: a random one) and ISO_FUZZ_RUNS=N runs N inputs
# instead of SECONDS: with both, a run is the same sequence of inputs on every machine (for a given
# corpus and build), which is how the test script runs them, so a submission's fuzzing explores
# exactly what it explored where it was checked; long runs explore afresh.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-300}
shift || true
names=("$@")
((${#names[@]})) || names=(obj vtk gltf sdf urdf)
jobs=$(nproc 2>/dev/null || echo 2)

CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DISO_WERROR=ON \
  -DISO_WITH_CUDA=OFF -DISO_TESTS=OFF -DISO_FUZZ=ON >/dev/null
cmake --build build-fuzz -j "$jobs" --target "${names[@]/#/fuzz_}" >/dev/null

# how long each runs: a fixed number of inputs, or a time; and the seed when one is given
if [[ -n ${ISO_FUZZ_RUNS:-} ]]; then limit=(-runs="$ISO_FUZZ_RUNS"); else limit=(-max_total_time="$seconds"); fi
[[ -n ${ISO_FUZZ_SEED:-} ]] && limit+=(-seed="$ISO_FUZZ_SEED")

status=0
for n in "${names[@]}"; do
  mkdir -p "build-fuzz/corpus/$n"
  log="build-fuzz/fuzz_$n.log"
  # -rss_limit_mb / -malloc_limit_mb: a reader asked to allocate past this is a finding.
  # Loaders refuse mesh files past 256 MiB, so 2 GiB is a generous ceiling. -timeout: a sphere
  # at the mesher's finest level takes ~3 s in a release build and 10-20 s under ASan and
  # coverage (fuzz/RESULTS.md); a unit past 60 s is a finding.
  if (cd build-fuzz && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      "./fuzz_$n" "${limit[@]}" -timeout=60 -rss_limit_mb=2048 -malloc_limit_mb=2048 \
      -print_final_stats=1 "corpus/$n" "../fuzz/corpus/$n") >"$log" 2>&1; then
    result=ok
  else
    result=FAILED
    status=1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
  echo "fuzz_$n: $result, $runs executions (${limit[*]}), $cov (log: $log)"
  [[ $result == ok ]] || tail -40 "$log"
done
exit $status
