"""The Python examples run (small settings), so the README's commands keep working."""
import os
import subprocess
import sys

from conftest import ROOT


def run(args, tmp_path):
    env = dict(os.environ, MPLBACKEND="Agg")
    return subprocess.run([sys.executable] + args, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)


def test_rollout_runs(tmp_path):
    r = run([os.path.join(ROOT, "examples", "python", "rollout.py")], tmp_path)
    assert r.returncode == 0, r.stderr
    assert "of 256 random grips lifted the cube" in r.stdout


def test_train_lift_writes_its_curve(tmp_path):
    out = tmp_path / "lift"
    r = run([os.path.join(ROOT, "examples", "python", "train_lift.py"), "--worlds", "8", "--iterations", "2",
             "--out", str(out)], tmp_path)
    assert r.returncode == 0, r.stderr
    rows = (tmp_path / "lift.csv").read_text().strip().splitlines()
    assert len(rows) == 3  # a header and one row per iteration
