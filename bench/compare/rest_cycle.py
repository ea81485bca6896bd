"""The resting hydroelastic box's velocity at late steps, in isobar and in Drake, side by side.

examples/compliant_box_on_plane.sdf never comes to rest exactly: it rocks in a cycle of a few
steps at ~1e-5 rad/s, so SAP's warm start (the previous step's velocity) never meets the stopping
test and every step takes one Newton iteration (bench/RESULTS.md, "Resting box"). This prints
the box's spatial velocity after steps FIRST..FIRST+COUNT-1 from both simulators, so the cycle
can be seen to be the model's (the same numbers in both), not isobar's.

Usage (from the repository root, with build-release/isobar built and a Python holding the pinned
drake, e.g. bench/compare/.venv):
    python bench/compare/rest_cycle.py [FIRST=3000] [COUNT=6]
"""
import csv
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from drake_run import DrakeScene  # noqa: E402

SCENE = os.path.join(ROOT, "examples", "compliant_box_on_plane.sdf")
BODY = "compliant_box::box"
DT = 0.001


def isobar_rows(first, count):
    """{step: (wx wy wz vx vy vz)} from isobar run --record, one world, CPU, one thread."""
    with tempfile.TemporaryDirectory() as tmp:
        rec = os.path.join(tmp, "rec.csv")
        subprocess.run([os.path.join(ROOT, "build-release", "isobar"), "run", SCENE, "--worlds", "1", "--steps",
                        str(first + count - 1), "--backend", "cpu", "--threads", "1", "--record", rec, "--quiet"],
                       check=True, stdout=subprocess.DEVNULL)
        out = {}
        with open(rec) as f:
            for r in csv.DictReader(f):
                k = int(r["step"])
                if r["body"] == BODY and first <= k < first + count:
                    out[k] = [float(r[c]) for c in ("wx", "wy", "wz", "vx", "vy", "vz")]
        return out


def drake_rows(first, count):
    """The same from Drake's discrete plant (SAP, lagged approximation) on the same file."""
    s = DrakeScene(SCENE, DT)
    out = {}
    for k in range(1, first + count):
        s.simulator.AdvanceTo(k * DT)
        if k >= first:
            st = s.state()[s.names.index(BODY)]
            out[k] = list(st[10:13]) + list(st[7:10])
    return out


def main():
    first = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    iso, drk = isobar_rows(first, count), drake_rows(first, count)
    print("step  simulator  wx wy wz (rad/s)  vx vy vz (m/s)")
    for k in range(first, first + count):
        for name, rows in (("isobar", iso), ("drake", drk)):
            print(f"{k}  {name:6}  " + " ".join(f"{x:+.3e}" for x in rows[k]))


if __name__ == "__main__":
    main()
