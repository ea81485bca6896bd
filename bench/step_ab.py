"""Before/after timing of the step: the same scenes through two `isobar` binaries, interleaved.

For every comparison scene (bench/compare's list) it runs `isobar run` with 1 world on 1 thread
(µs per world-step over the whole trajectory) and with 4096 worlds on 1 and on 2 threads over a
short window (µs per world-step, and the two-thread speed-up), alternating the two binaries
within each repetition so a busy host slows both alike. Medians over the repetitions; the
spread (max/min of the repetitions of one binary) is reported as the noise.

Usage: python3 bench/step_ab.py BEFORE_BIN AFTER_BIN [reps] [rigid|deformable] > table.md
(the deformable set runs its N-world case at 256 worlds)
(bench/step_ab.sh builds both binaries from two revisions and calls this.)
"""
import json
import statistics
import subprocess
import sys

ROOT = __file__.rsplit("/bench/", 1)[0]
# key, file, steps at 1 world, steps at 4096 worlds, extra arguments
RIGID = [
    ("box", "compliant_box_on_plane", 1000, 40, []),
    ("incline_below", "incline_below_friction", 1000, 40, []),
    ("incline_above", "incline_above_friction", 1000, 40, []),
    ("sphere", "sphere_on_box", 1000, 4, []),
    ("stack", "stack_of_five_boxes", 300, 3, []),
    ("coin", "coin_slide_spin", 1000, 3,
     ["--initial-velocity", "coin=0.5,0,0,0,0,40", "--max-contacts", "378"]),
    ("point", "point_contact", 1000, 100, []),
    ("pick", "pick", 1500, 3,  # the gripper closes on the cube and lifts it (bench/compare/joints.py's run)
     ["--joint-target", "lift=0.1", "--joint-target", "left=0.04", "--joint-target", "right=0.04"]),
]
# the deformable compare scenes and the arch; at N worlds (NDEF, fewer: a ball's step is ms) a few
# steps from the start
NDEF = 256
DEFORMABLE = [
    ("soft beam", "soft_beam", 1000, 4, []),
    ("soft ball", "soft_ball", 1000, 2, []),
    ("soft grasp", "soft_pick", 300, 2,
     ["--joint-target", "lift=0.1", "--joint-target", "left=0.04", "--joint-target", "right=0.04"]),
    ("arch (stand)", "arch", 250, 2, []),
]


def run(binary, scene, worlds, threads, steps, extra):
    cmd = [binary, "run", f"{ROOT}/examples/{scene}.sdf", "--worlds", str(worlds), "--threads", str(threads),
           "--steps", str(steps), "--backend", "cpu", "--quiet"] + extra
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 3):  # 3: worlds faulted (newer binaries); the JSON line still comes
        raise SystemExit(f"{' '.join(cmd)} failed:\n{p.stderr[-1000:]}")
    j = json.loads(p.stdout.strip().splitlines()[-1])
    return 1e6 * j["wall_s"] / (worlds * steps)


def free_bench(binary, worlds, threads):
    """µs per world-step of the free-body throughput scene (isobar bench --scene free)."""
    cmd = [binary, "bench", "--scene", "free", "--worlds", str(worlds), "--steps", "200", "--threads", str(threads),
           "--backend", "cpu", "--quiet"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{p.stderr[-1000:]}")
    return 1e6 / json.loads(p.stdout.strip().splitlines()[-1])["world_steps_per_s"]


def main():
    before, after = sys.argv[1], sys.argv[2]
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    deformable = len(sys.argv) > 4 and sys.argv[4] == "deformable"
    scenes, nw = (DEFORMABLE, NDEF) if deformable else (RIGID, 4096)
    bins = {"before": before, "after": after}
    cases = []
    for key, f, s1, s4k, extra in scenes:
        cases += [(key, f, 1, 1, s1, extra), (key, f, nw, 1, s4k, extra), (key, f, nw, 2, s4k, extra)]
    res = {(c[0], c[2], c[3], b): [] for c in cases for b in bins}
    for _ in range(reps):
        for key, f, w, t, s, extra in cases:
            for b, path in bins.items():
                res[(key, w, t, b)].append(run(path, f, w, t, s, extra))
    free = {(b, t): [] for b in bins for t in (1, 2)}
    for _ in range(0 if deformable else reps):
        for t in (1, 2):
            for b, path in bins.items():
                free[(b, t)].append(free_bench(path, 16384, t))
    med = {k: statistics.median(v) for k, v in res.items()}
    noise = {k: max(v) / min(v) - 1 for k, v in res.items()}
    print(f"| scene | 1 world, 1 thread: before → after µs | change | noise | {nw} worlds, 2 threads: before → after µs"
          f" | 2-thread speed-up at {nw}: before → after |")
    print("|---|---|---|---|---|---|")
    for key, *_ in scenes:
        b1, a1 = med[(key, 1, 1, "before")], med[(key, 1, 1, "after")]
        n1 = max(noise[(key, 1, 1, "before")], noise[(key, 1, 1, "after")])
        b2, a2 = med[(key, nw, 2, "before")], med[(key, nw, 2, "after")]
        sb = med[(key, nw, 1, "before")] / b2
        sa = med[(key, nw, 1, "after")] / a2
        print(f"| {key} | {b1:.2f} → {a1:.2f} | {100 * (a1 / b1 - 1):+.1f}% | ±{100 * n1:.1f}% | "
              f"{b2:.2f} → {a2:.2f} | {sb:.2f}× → {sa:.2f}× |")
    if deformable:
        return
    fm = {k: statistics.median(v) for k, v in free.items()}
    fn = max(max(v) / min(v) - 1 for v in free.values())
    print()
    print(f"Free bodies (isobar bench --scene free, 16384 worlds, 200 steps), µs per world-step: 1 thread "
          f"{fm[('before', 1)]:.4f} → {fm[('after', 1)]:.4f}, 2 threads {fm[('before', 2)]:.4f} → "
          f"{fm[('after', 2)]:.4f} (noise ±{100 * fn:.1f}%); 2-thread speed-up "
          f"{fm[('before', 1)] / fm[('before', 2)]:.2f}× → {fm[('after', 1)] / fm[('after', 2)]:.2f}×.")


if __name__ == "__main__":
    main()
