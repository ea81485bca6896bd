#!/usr/bin/env bash
# Memory per world of three contact scenes at default capacities, from 64 worlds up: the
# library's own figure (iso_sim_memory_per_world, printed by `isobar run` as bytes_per_world:
# the sizes of the buffers with a world axis) and the process's peak resident set divided by
# the worlds (what the operating system actually handed out: calloc'd pages that are never
# written are not resident, so it can sit below the buffer sizes). One step per run, so the
# contact buffers are written once.
# Usage: bash bench/memory.sh [ISOBAR [MAX_WORLDS]]   (defaults: build-release/isobar, 16384)
# Output: CSV on stdout: scene,worlds,bytes_per_world,peak_rss_kib,rss_bytes_per_world
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build-release/isobar}
max=${2:-16384}
timing=$(mktemp)
trap 'rm -f "$timing"' EXIT
echo "scene,worlds,bytes_per_world,peak_rss_kib,rss_bytes_per_world"
for scene in stack_of_five_boxes compliant_box_on_plane coin_slide_spin; do
  for worlds in 64 256 1024 4096 16384; do
    [ "$worlds" -le "$max" ] || continue
    json=$(/usr/bin/time -v -o "$timing" \
      "$bin" run "examples/$scene.sdf" --worlds "$worlds" --steps 1 --backend cpu --quiet 2>/dev/null | tail -1)
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$timing")
    bpw=$(echo "$json" | sed -n 's/.*"bytes_per_world": \([0-9]*\).*/\1/p')
    echo "$scene,$worlds,$bpw,$rss,$((rss * 1024 / worlds))"
  done
done
