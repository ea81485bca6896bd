#!/usr/bin/env bash
# The pick scene (a jointed gripper lifting a compliant cube; include/isobar/scenes.h) on the CPU
# from 1 to 16384 worlds: world-steps per second, the stages' shares of the step's time, bytes
# per world (the library's figure) and the process's peak resident set per world. STEPS steps
# of the scene's schedule each (default 600: descend, close on the cube, start lifting — the
# contact-rich part), THREADS threads (default 2), REPS repetitions of each size (median).
# Usage: bash bench/pick.sh [ISOBAR [MAX_WORLDS]]   (defaults: build-release/isobar, 16384)
# Output: CSV on stdout:
#   worlds,threads,steps,world_steps_per_s_median,bytes_per_world,peak_rss_kib,stage_shares
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build-release/isobar}
max=${2:-16384}
steps=${STEPS:-600}
threads=${THREADS:-2}
reps=${REPS:-3}
timing=$(mktemp)
trap 'rm -f "$timing"' EXIT
echo "worlds,threads,steps,world_steps_per_s_median,bytes_per_world,peak_rss_kib,stage_shares"
for worlds in 1 16 256 1024 4096 16384; do
  [ "$worlds" -le "$max" ] || continue
  rates=()
  for ((r = 0; r < reps; ++r)); do
    json=$(/usr/bin/time -v -o "$timing" "$bin" bench --scene pick --worlds "$worlds" --steps "$steps" \
      --threads "$threads" --backend cpu --quiet | tail -1)
    rates+=("$(echo "$json" | sed -n 's/.*"world_steps_per_s": \([0-9.]*\).*/\1/p')")
  done
  median=$(printf '%s\n' "${rates[@]}" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$timing")
  bpw=$(echo "$json" | sed -n 's/.*"bytes_per_world": \([0-9]*\).*/\1/p')
  shares=$(echo "$json" | sed -n 's/.*"stage_shares": {\(.*\)}}.*/\1/p' | tr -d '" ' | tr ',' ' ')
  echo "$worlds,$threads,$steps,$median,$bpw,$rss,$shares"
done
