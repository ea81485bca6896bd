#!/usr/bin/env bash
# Scene load time against the number of bodies (bench/RESULTS.md, "Loading large scenes"):
# generates SDFormat scenes of N free links with bench/gen_many_bodies.py, one model holding
# them all and one model per link, and times iso_scene_load with bench_load (median of REPS).
#   bash bench/load_bodies.sh [BUILD_DIR] [REPS] > out.csv
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
reps=${2:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "layout,bodies,median_s"
for n in 1024 4096 16384 65536; do
  for layout in one_model models; do
    flag=""
    [ "$layout" = models ] && flag=--models
    python3 "$here/gen_many_bodies.py" "$n" "$tmp/s.sdf" $flag
    "$build/bench_load" "$tmp/s.sdf" "$reps" | tail -1 | awk -F, -v l="$layout" '{print l "," $2 "," $4}'
  done
done
