#!/usr/bin/env bash
# Build `isobar` (Release, CPU backend) at two revisions and time the step of every comparison
# scene through both, interleaved (bench/step_ab.py). Usage:
#   bash bench/step_ab.sh BEFORE_REV [AFTER_REV=HEAD] [reps=3] [rigid|deformable] > bench/results/step_ab.md
set -euo pipefail
cd "$(dirname "$0")/.."
before=${1:?usage: step_ab.sh BEFORE_REV [AFTER_REV] [reps]}
after=${2:-HEAD}
reps=${3:-3}
set_=${4:-rigid}
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/before" >/dev/null 2>&1 || true;
      git worktree remove --force "$tmp/after" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
for side in before after; do
  rev=$before
  [[ $side == after ]] && rev=$after
  git worktree add -q --detach "$tmp/$side" "$rev"
  cmake -S "$tmp/$side" -B "$tmp/$side/build" -DCMAKE_BUILD_TYPE=Release -DISO_TESTS=OFF -DISO_WITH_CUDA=OFF >/dev/null
  cmake --build "$tmp/$side/build" -j 2 --target isobar >/dev/null
done
echo "Step timing, $(git rev-parse --short "$before") → $(git rev-parse --short "$after"), $reps repetitions" \
  "interleaved, medians; $(lscpu | sed -n 's/^Model name: *//p') × $(nproc), $(date -u +%F)"
echo
python3 bench/step_ab.py "$tmp/before/build/isobar" "$tmp/after/build/isobar" "$reps" "$set_"
