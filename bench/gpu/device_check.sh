#!/usr/bin/env bash
# The checks and timings to run on a machine with a CUDA GPU, over a staged build
# (bench/gpu/stage.sh makes it: binaries, the CUDA module and the shared libraries a bare machine
# lacks). One pass, each part under its own time limit, so a hang costs one part, not the run:
#   1. the device: nvidia-smi, the driver, the module's probe;
#   2. the Criterion suite with ISO_REQUIRE_CUDA_DEVICE=1 (a skipped device test fails);
#   3. the Python package's CUDA tests (DLPack arrays, with PyTorch when it is installed);
#   4. whole-step throughput on the GPU (and on every CPU core of the same machine, for scale);
#   5. compute-sanitizer memcheck over short runs of a rigid, a jointed and a deformable scene;
#   6. Nsight Compute's per-kernel times on the stack (NCU_SCENES: other scenes and windows);
#   blocks: the one-item-per-world kernels at 32, 64 and 128 threads per block
#   (ISO_CUDA_WORLD_BLOCK), on three scenes at 4096 worlds;
#   parity: every example's state hash on the CPU and on the GPU (and with the stage's second
#   CUDA module, stage.sh ALT_BUILD: ISO_PARITY the other way);
#   fma: throughput of the stage's CUDA module against the second one;
#   ab: throughput of the stage's CUDA module with and without the environment setting AB_ENV
#   (a switch the library reads, say ISO_CUDA_SOLVE_WORKSPACE=1), interleaved.
# Writes under OUT (default bench/out/gpu): summary.txt (printed last), tests.log, python.log,
# sanitizer.log, throughput.csv, runs.log, ncu_NAME.csv (+ ncu_NAME.log) per NCU_SCENES entry.
# Usage: bash bench/gpu/device_check.sh [stage-dir] [budget-s]
set -u
cd "$(dirname "$0")/../.."
S=${1:-build-gpustage}
BUDGET=${2:-420}
OUT=${OUT:-bench/out/gpu}
mkdir -p "$OUT"
PARTS=${PARTS:-device tests python throughput blocks sanitizer parity fma ncu}  # which parts to run
SCENES=${SCENES:-}  # throughput: only these scenes (space-separated) when set
# TESTS: an extended regular expression; only the test executables it matches
T0=$(date +%s)
has() { [[ " $PARTS " == *" $1 "* ]]; }
left() { echo $((BUDGET - ($(date +%s) - T0))); }
say() { echo "$*" | tee -a "$OUT/summary.txt"; }
: >"$OUT/summary.txt"

ROOT=$PWD
if [[ ! -d $S && -f $S-carry/stage.tar.xz ]]; then python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall()" "$S-carry/stage.tar.xz"; fi
cudalib=""
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib $(ls -d /usr/local/cuda-*/lib64 2>/dev/null); do
  [[ -e $d/libcusolver.so.12 || -e $d/libcudart.so.13 ]] && cudalib="$cudalib:$d"
done
# PyTorch's wheels carry cuSOLVER and cudart too; used only when the toolkit's are not found
for d in $(python3 -c 'import nvidia, os; r = nvidia.__path__[0]; print(" ".join(os.path.join(r, x, "lib") for x in os.listdir(r)))' 2>/dev/null); do
  [[ -d $d ]] && cudalib="$cudalib:$d"
done
export LD_LIBRARY_PATH="$ROOT/$S/lib:$ROOT/$S$cudalib:${LD_LIBRARY_PATH:-}"
export ISO_CUDA_MODULE="$ROOT/$S/libisobar_cuda.so"
export ISO_SOURCE_DIR="$ROOT" ISO_BINARY_DIR="$ROOT/$S"
export ISO_REQUIRE_CUDA_DEVICE=1

has device && {
# ---- 1. the device ---------------------------------------------------------------------------
say "== device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | tee -a "$OUT/summary.txt"
say "nproc $(nproc); cuda libs:$cudalib"
ldd "$S/libisobar_cuda.so" | grep -E "not found|cusolver|cudart" | tee -a "$OUT/summary.txt"
timeout 60 "$S/isobar" run examples/compliant_box_on_plane.sdf --backend cuda --worlds 64 --steps 20 --quiet 2>&1 |
  tail -n 3 | tee -a "$OUT/summary.txt"

}
has tests && {
# ---- 2. the Criterion suite --------------------------------------------------------------------
say "== tests (ISO_REQUIRE_CUDA_DEVICE=1), $(left) s left"
logs=$(mktemp -d)  # one log and exit code per test executable
tl=$(( $(left) * 30 / 100 )); (( tl > 150 )) && tl=150
ls "$S/tests" | grep -E "${TESTS:-.}" | xargs -P 4 -I{} sh -c "timeout $tl '$S/tests/{}' --jobs 4 >\"$logs/{}.log\" 2>&1; echo \$? >\"$logs/{}.rc\""
fails=0
for rc in "$logs"/*.rc; do
  t=$(basename "$rc" .rc)
  if [[ $(cat "$rc") != 0 ]]; then fails=$((fails + 1)); say "FAIL $t (exit $(cat "$rc"))"; fi
done
cat "$logs"/*.log >"$OUT/tests.log"
say "test binaries: $(ls "$S/tests" | grep -cE "${TESTS:-.}"), failed: $fails; $(cat "$logs"/*.log | python3 -c '
import re, sys
tot = {}
for m in re.finditer(r"(Tested|Passing|Failing|Crashing): (\d+)", sys.stdin.read()):
    tot[m.group(1)] = tot.get(m.group(1), 0) + int(m.group(2))
print(", ".join(f"{k} {v}" for k, v in tot.items()))')"
grep -h -B2 -A6 "FAIL\|Crash\|SKIP" "$logs"/*.log | grep -v "^\[----\] Criterion" | head -60 >>"$OUT/summary.txt"
rm -rf "$logs"

}
has python && {
# ---- 3. the Python package on the device ----------------------------------------------------
say "== python (CUDA arrays), $(left) s left"
(cd python && ISOBAR_LIBRARY="$ROOT/$S/libisobar.so" PYTHONPATH=. timeout 60 python3 -m pytest -q \
  tests/test_cuda_arrays.py -p no:cacheprovider -rA) >"$OUT/python.log" 2>&1
say "python exit $?: $(tail -n 1 "$OUT/python.log")"

}
has throughput && {
# ---- 4. throughput ---------------------------------------------------------------------------
say "== throughput, $(left) s left"
csv="$OUT/throughput.csv"
[[ -f $csv ]] || echo "scene,backend,threads,worlds,steps,wall_s,world_steps_per_s,faulted" >"$csv"
one() { # scene backend worlds steps threads
  local line
  line=$(timeout 45 "$S/isobar" run "examples/$1.sdf" --backend "$2" --worlds "$3" --steps "$4" --threads "$5" \
    --quiet 2>>"$OUT/runs.log" | tail -n 1)
  echo "$1 $2 $3 $4: ${line:0:400}" >>"$OUT/runs.log"
  python3 - "$line" "$1" "$2" "$5" "$3" "$4" >>"$csv" <<'PY'
import json, sys
try:
    d = json.loads(sys.argv[1])
    print(f"{sys.argv[2]},{sys.argv[3]},{sys.argv[4]},{sys.argv[5]},{sys.argv[6]},{d['wall_s']},{d['world_steps_per_s']},{d.get('faulted_worlds', '')}")
except Exception:
    print(f"{sys.argv[2]},{sys.argv[3]},{sys.argv[4]},{sys.argv[5]},{sys.argv[6]},,,FAILED")
PY
}
# scene:S:L:world counts. At 4096 worlds and more, a run of S steps and one of L: their difference
# is the warm per-step rate (the first step loads the kernels and sizes the stacks); the sphere
# touches the box only after ~200 steps, so its runs differ by contact steps alone
# in order of what is least known: the rich scenes first, the deformables (soft_pick is the
# anchor against published soft-body RL throughput) before the small rigid ones
for spec in stack_of_five_boxes:40:120:1024,4096,16384 coin_slide_spin:40:120:1024,4096,16384 \
  soft_pick:20:60:256,1024,4096 soft_beam:20:60:256,1024,4096 sphere_on_box:250:400:1024,4096,16384 \
  pick:100:300:1024,4096,16384 compliant_box_on_plane:200:600:1024,4096,16384 \
  point_contact:200:600:1024,4096,16384 soft_ball:10:30:256,1024,4096 arch:10:30:256,1024,4096; do
  IFS=: read -r sc st lt sizes <<<"$spec"
  [[ -n $SCENES && " $SCENES " != *" $sc "* ]] && continue
  for w in ${sizes//,/ }; do
    (( $(left) < 150 )) && break 2
    one "$sc" cuda "$w" "$st" 1
    (( w >= 4096 )) && one "$sc" cuda "$w" "$lt" 1
  done
  one "$sc" cpu 4096 "$st" "$(nproc)"
done
python3 - "$csv" <<'PY' | tee -a "$OUT/summary.txt"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("| scene | backend | worlds | warm world-steps/s (runs S and 3S) | wall of the 3S run, s |")
print("|---|---|---:|---:|---:|")
by = {}
for r in rows:
    by.setdefault((r["scene"], r["backend"], r["worlds"]), []).append(r)
for (sc, be, w), rs in by.items():
    ok = [r for r in rs if r["wall_s"]]
    if len(ok) == 2:
        a, b = sorted(ok, key=lambda r: int(r["steps"]))
        dt = float(b["wall_s"]) - float(a["wall_s"])
        rate = int(w) * (int(b["steps"]) - int(a["steps"])) / dt if dt > 0 else float("nan")
        print(f"| {sc} | {be} | {w} | {rate:,.0f} | {float(b['wall_s']):.3f} |")
    elif len(ok) == 1:
        print(f"| {sc} | {be} ({ok[0]['threads']} thr) | {w} | {float(ok[0]['world_steps_per_s']):,.0f} (one run) | {float(ok[0]['wall_s']):.3f} |")
    else:
        print(f"| {sc} | {be} | {w} | FAILED | |")
PY
}
has blocks && {
# ---- the per-world kernels' block size (kernels/kernel_table.h: 32 by default) ---------------
say "== world block sizes, $(left) s left"
for spec in stack_of_five_boxes:40:120 pick:100:300 sphere_on_box:250:400; do
  IFS=: read -r sc st lt <<<"$spec"
  for bk in 32 64 128; do
    (( $(left) < 120 )) && break 2
    r=()
    for steps in "$st" "$lt"; do
      r+=("$(ISO_CUDA_WORLD_BLOCK=$bk timeout 45 "$S/isobar" run "examples/$sc.sdf" --backend cuda --worlds 4096 \
        --steps "$steps" --quiet 2>/dev/null | tail -n 1 | python3 -c 'import json, sys; print(json.loads(sys.stdin.read())["wall_s"])' 2>/dev/null)")
    done
    say "$sc 4096 worlds, world block $bk: $(python3 -c "import sys; a, b = map(float, sys.argv[1:3]); print(f'{4096 * ($lt - $st) / (b - a):,.0f} warm world-steps/s')" "${r[0]:-nan}" "${r[1]:-nan}" 2>/dev/null || echo failed)"
  done
done
}
has sanitizer && {
# ---- 5. compute-sanitizer ------------------------------------------------------------------
say "== compute-sanitizer memcheck, $(left) s left"
: >"$OUT/sanitizer.log"
for run in "examples/stack_of_five_boxes.sdf --worlds 8 --steps 4" "examples/pick.sdf --worlds 8 --steps 4" \
  "examples/soft_ball.sdf --worlds 2 --steps 2" "examples/point_contact.sdf --worlds 8 --steps 4"; do
  (( $(left) < 110 )) && { say "skipped (time): $run"; continue; }
  timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 "$S/isobar" run $run --backend cuda --quiet \
    >>"$OUT/sanitizer.log" 2>&1
  rc=$?
  say "memcheck rc $rc: $run $(grep -m1 'ERROR SUMMARY' "$OUT/sanitizer.log" | tail -n 1)"
done

}
has parity && {
# ---- the same state on the GPU as on the CPU? Every example, 100 steps, 3 worlds: the state hash
# of the CPU backend, of the GPU and, when the stage holds a second CUDA module (stage.sh with
# ALT_BUILD, built with ISO_PARITY the other way: with or without nvcc's FMA contraction), of that
say "== parity (state hashes, 100 steps, 3 worlds), $(left) s left"
say "| scene | cpu | cuda | cuda, second module | faulted worlds cpu/cuda/second |"
say "|---|---|---|---|---|"
hash_of() { python3 -c 'import json, sys
try:
    d = json.loads(sys.stdin.read().strip().splitlines()[-1]); print(d["state_hash"], d["faulted_worlds"])
except Exception:
    print("failed -")'; }
for f in examples/*.sdf examples/*.urdf; do
  [[ -n ${PARITY_ONLY:-} && ! $f =~ $PARITY_ONLY ]] && continue  # an extended regular expression
  (( $(left) < 60 )) && { say "parity: out of time at $f"; break; }
  read -r hc fc < <(timeout 30 "$S/isobar" run "$f" --steps 100 --worlds 3 --threads 1 --quiet --allow-faults 2>/dev/null | hash_of)
  t0=$(date +%s.%N)
  read -r hg fg < <(timeout 30 "$S/isobar" run "$f" --backend cuda --steps 100 --worlds 3 --quiet --allow-faults 2>"$OUT/parity.err" | hash_of)
  [[ $hg == failed ]] && say "  $(basename "$f") on the GPU failed after $(python3 -c "import time; print(round(time.time() - $t0, 1))") s (a 30 s limit): $(tail -n 2 "$OUT/parity.err" | tr '\n' ' ')"
  hp=-; fp=-
  if [[ -f $S/libisobar_cuda_alt.so ]]; then
    read -r hp fp < <(ISO_CUDA_MODULE="$ROOT/$S/libisobar_cuda_alt.so" timeout 30 "$S/isobar" run "$f" --backend cuda \
      --steps 100 --worlds 3 --quiet --allow-faults 2>/dev/null | hash_of)
  fi
  rm -f "$OUT/parity.err"
  say "| $(basename "$f") | $hc | $hg$([[ $hg == "$hc" ]] && echo ' (=)') | $hp$([[ $hp == "$hc" ]] && echo ' (=)') | $fc/$fg/$fp |"
done
}
# ---- interleaved throughput of two variants (fma, ab): warm world-steps/s, runs of S and 3S
# steps per scene (SPECS: scene:S:3S), at 4096 and 16384 worlds; run_a / run_b run `isobar run`
# with the arguments given, each its way
DEFAULT_SPECS="stack_of_five_boxes:40:120 coin_slide_spin:40:120 pick:100:300 compliant_box_on_plane:200:600 point_contact:200:600 sphere_on_box:250:400 soft_pick:20:60"
wall_of() { python3 -c 'import json, sys
try:
    print(json.loads(sys.stdin.read().strip().splitlines()[-1])["wall_s"])
except Exception:
    print("nan")'; }
compare_variants() {  # SPECS; prints a table row per scene and world count
  for spec in $1; do
    IFS=: read -r sc st lt <<<"$spec"
    for w in 4096 16384; do
      (( $(left) < 40 )) && return
      r=()
      for variant in run_a run_b; do
        for steps in "$st" "$lt"; do
          r+=("$($variant "examples/$sc.sdf" --backend cuda --worlds $w --steps "$steps" --quiet --allow-faults \
            2>>"$OUT/runs.log" | wall_of)")
        done
      done
      say "$(python3 - "$sc" "$w" "$st" "$lt" "${r[@]}" <<'PY'
import sys
sc, w, st, lt = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
a0, a1, b0, b1 = map(float, sys.argv[5:9])
fa, fb = w * (lt - st) / (a1 - a0), w * (lt - st) / (b1 - b0)
print(f"| {sc} | {w} | {fa:,.0f} | {fb:,.0f} | {fb / fa:.3f} |")
PY
)"
    done
  done
}
has fma && {
# ---- what FMA contraction buys: the stage's CUDA module against its second one (ALT_BUILD:
# ISO_PARITY the other way)
if [[ -f $S/libisobar_cuda_alt.so ]]; then
  say "== the CUDA module against the second one (FMA contraction or none), $(left) s left"
  say "| scene | worlds | module | second module | second ÷ module |"
  say "|---|---:|---:|---:|---:|"
  run_a() { ISO_CUDA_MODULE="$ROOT/$S/libisobar_cuda.so" timeout 45 "$S/isobar" run "$@"; }
  run_b() { ISO_CUDA_MODULE="$ROOT/$S/libisobar_cuda_alt.so" timeout 45 "$S/isobar" run "$@"; }
  compare_variants "${FMA_SCENES:-$DEFAULT_SPECS}"
fi
}
has ab && {
# ---- an environment switch's cost: the stage's CUDA module as it is and with AB_ENV (say
# ISO_CUDA_SOLVE_WORKSPACE=1)
if [[ -n ${AB_ENV:-} ]]; then
  say "== the CUDA module as it is and with $AB_ENV, $(left) s left"
  say "| scene | worlds | as it is | with $AB_ENV | with it ÷ as it is |"
  say "|---|---:|---:|---:|---:|"
  run_a() { timeout 45 "$S/isobar" run "$@"; }
  run_b() { env "$AB_ENV" timeout 45 "$S/isobar" run "$@"; }
  compare_variants "${AB_SCENES:-$DEFAULT_SPECS}"
fi
}
has ncu && {
# ---- 6. per-kernel times and launch figures (Nsight Compute) at 4096 worlds over a window of
# launches: NCU_SCENES, each scene:launches skipped:launches timed:steps run (default the stack
# in the throughput runs' timed window: about 11 launches a step, 400 skipped is step ~36). The
# grippers close on their cubes (their PD targets as bench/compare sets them). Per step: divided
# by the solve's launches, one a step.
for spec in ${NCU_SCENES:-stack_of_five_boxes:400:33:45}; do
  IFS=: read -r sc skip count steps <<<"$spec"
  (( $(left) > 40 )) && command -v ncu >/dev/null || break
  extra=()
  [[ $sc == pick || $sc == soft_pick ]] && extra=(--joint-target lift=0.1 --joint-target left=0.04 --joint-target right=0.04)
  name=$sc; [[ $sc == stack_of_five_boxes ]] && name=stack
  say "== ncu, $sc, launches $skip + $count, $(left) s left"
  timeout $(( $(left) - 15 )) ncu --csv --metrics gpu__time_duration.sum,launch__registers_per_thread,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active,launch__stack_size \
    --launch-skip "$skip" --launch-count "$count" \
    "$S/isobar" run "examples/$sc.sdf" --backend cuda --worlds 4096 --steps "$steps" --quiet "${extra[@]}" >"$OUT/ncu_$name.raw" 2>&1
  say "ncu exit $?"
  # the report's rows alone in the CSV; ncu's own lines (they name the machine's paths) and the
  # run's summary apart
  grep '^"' "$OUT/ncu_$name.raw" >"$OUT/ncu_$name.csv"
  grep -v '^"' "$OUT/ncu_$name.raw" | grep -v '^==PROF==' >"$OUT/ncu_$name.log"
  rm -f "$OUT/ncu_$name.raw"
  python3 - "$OUT/ncu_$name.csv" <<'PY' | tee -a "$OUT/summary.txt"
import csv, sys, collections
lines = [l for l in open(sys.argv[1]) if l.startswith('"')]
t = collections.defaultdict(float); n = collections.Counter(); regs = {}
for r in csv.DictReader(lines):
    k = r["Kernel Name"].split("(")[0]
    if r["Metric Name"] == "gpu__time_duration.sum":
        v = float(r["Metric Value"].replace(",", ""))
        t[k] += v * {"ns": 1e-3, "nsecond": 1e-3, "ms": 1e3, "msecond": 1e3}.get(r["Metric Unit"], 1.0); n[k] += 1
    if r["Metric Name"] == "launch__registers_per_thread": regs[k] = r["Metric Value"]
tot = sum(t.values())
steps = n.get("sap_solve_kernel", 0)
print(f"{steps} steps (launches of sap_solve_kernel); kernel time {tot / max(steps, 1):,.1f} µs a step")
print("| kernel | launches | µs a step | share | regs |")
print("|---|---:|---:|---:|---:|")
for k, v in sorted(t.items(), key=lambda kv: -kv[1])[:20]:
    print(f"| {k} | {n[k]} | {v / max(steps, 1):,.1f} | {100*v/tot:.1f}% | {regs.get(k, '')} |")
PY
done
}
say "== done in $(( $(date +%s) - T0 )) s"
