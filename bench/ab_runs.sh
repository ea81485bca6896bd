#!/usr/bin/env bash
# Before/after timing of one scene through two `isobar` binaries on a host whose speed drifts:
# many short runs, the two binaries alternating (and alternating which goes first), each run's
# stepping time read from its JSON line (wall_s). Prints, for each binary, the fastest run, the
# mean of the fastest tenth and the median, and B's over A's for each. Comparing a binary with
# itself shows the host's spread, below which a difference is not a result.
#
#   bash bench/ab_runs.sh BEFORE_BIN AFTER_BIN RUNS -- examples/stack_of_five_boxes.sdf --steps 300
#
# Everything after -- goes to `isobar run` (with --worlds 1 --threads 1 --backend cpu --quiet
# unless given there).
set -euo pipefail
if [[ $# -lt 4 || $4 != -- ]]; then
  echo "usage: bash bench/ab_runs.sh BEFORE_BIN AFTER_BIN RUNS -- SCENE [isobar run options]" >&2
  exit 2
fi
a_bin=$1 b_bin=$2 runs=$3
shift 4
args=(--worlds 1 --threads 1 --backend cpu --quiet "$@")

one() { # wall_s of one run
  "$1" run "${args[@]}" | tail -1 | python3 -c 'import json, sys; print(json.load(sys.stdin)["wall_s"])'
}

ta=() tb=()
for ((i = 0; i < runs; ++i)); do
  if ((i % 2)); then
    b=$(one "$b_bin"); a=$(one "$a_bin")
  else
    a=$(one "$a_bin"); b=$(one "$b_bin")
  fi
  ta+=("$a") tb+=("$b")
done
python3 - "${ta[*]}" "${tb[*]}" <<'EOF'
import statistics
import sys

a = sorted(float(x) for x in sys.argv[1].split())
b = sorted(float(x) for x in sys.argv[2].split())
tenth = lambda v: statistics.mean(v[:max(1, len(v) // 10)])
for name, v in (("A", a), ("B", b)):
    print(f"{name}: fastest {v[0] * 1e3:.2f} ms, fastest tenth {tenth(v) * 1e3:.2f} ms, "
          f"median {statistics.median(v) * 1e3:.2f} ms ({len(v)} runs)")
print(f"B/A: fastest {b[0] / a[0]:.3f}, fastest tenth {tenth(b) / tenth(a):.3f}, "
      f"median {statistics.median(b) / statistics.median(a):.3f}")
EOF
