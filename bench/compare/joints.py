"""Jointed scenes in the comparison (called from compare.py): joint angles over time and speed.

Scenes: isobar's examples/pendulum.sdf and examples/double_pendulum.sdf, and two of Drake's own
example files shipped in its PyPI package (found with FindResourceOrThrow), the acrobot and the
cart-pole. Each is started from the same joint positions on both sides (isobar: --joint-position;
Drake: plant.SetPositions at the joint's position_start) and stepped with the same time step:
  - agreement: every 1-DoF joint's q (and v) at every step, isobar's `isobar run
    --record-joints` against Drake's plant.GetPositions / GetVelocities; the largest difference
    and the first time it exceeds 1e-6 (chaotic scenes part after a while whatever the precision);
  - speed: seconds per world-step, isobar one world on one thread and 4096 worlds on two
    threads (`isobar run`, the whole trajectory), Drake one world (Simulator.AdvanceTo).
Joints are matched by their plain names (isobar scopes them `model::joint`)."""
import csv
import os
import statistics
import subprocess
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
OUT = os.path.join(HERE, "out")
ISOBAR = os.path.join(ROOT, "build-release", "isobar")
QUICK = os.environ.get("COMPARE_QUICK") == "1"

# key, file (a path under the repository, or "drake:" + a Drake resource), title, dt, steps,
# initial joint positions, PD position targets held for the whole run (plain joint names)
JOINT_SCENES = [
    ("pendulum", "examples/pendulum.sdf", "simple pendulum, 0.5 rad", 1e-3, 4000, {"pivot": 0.5}, {}),
    ("double_pendulum", "examples/double_pendulum.sdf", "double pendulum (chaotic)", 1e-3, 3000,
     {"shoulder": 1.0, "elbow": 0.5}, {}),
    ("acrobot", "drake:drake/examples/acrobot/Acrobot.urdf", "Drake's acrobot (Acrobot.urdf)", 1e-3, 3000,
     {"shoulder": 1.0, "elbow": 0.3}, {}),
    ("cart_pole", "drake:drake/examples/multibody/cart_pole/cart_pole.sdf", "Drake's cart-pole (cart_pole.sdf)",
     1e-3, 2000, {"PolePin": 0.3}, {}),
    ("pick", "examples/pick.sdf", "the pick: a PD gripper lifts a compliant cube (contact)", 1e-3, 1500, {},
     {"lift": 0.1, "left": 0.04, "right": 0.04}),
]
if QUICK:
    JOINT_SCENES = [(k, f, t, dt, min(s, 200), q0, qd) for k, f, t, dt, s, q0, qd in JOINT_SCENES]
WORLDS = 4096
DIVERGE = 1e-6


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


def resolve(f):
    """An absolute path for a scene: the repository's, or the file inside Drake's package."""
    if f.startswith("drake:"):
        from pydrake.common import FindResourceOrThrow
        return FindResourceOrThrow(f[len("drake:"):])
    return os.path.join(ROOT, f)


def plain(name):
    return name.rsplit("::", 1)[-1]


# ---- Drake ---------------------------------------------------------------------------------------

def fix_pd_inputs(plant, ctx, targets):
    """Zero feed-forward efforts, and the PD targets [q_d; v_d = 0] of every model instance with
    PD-controlled actuators (in actuator order, as Drake's desired-state port wants them; a joint
    not in targets (plain names) holds 0)."""
    from pydrake.multibody.tree import ModelInstanceIndex
    p = plant
    for mi in range(p.num_model_instances()):
        inst = ModelInstanceIndex(mi)
        acts = p.GetJointActuatorIndices(inst)
        if not acts:
            continue
        qd = [targets.get(p.get_joint_actuator(a).joint().name(), 0.0) for a in acts
              if p.get_joint_actuator(a).has_controller()]
        if qd:
            p.get_desired_state_input_port(inst).FixValue(ctx, np.array(qd + [0.0] * len(qd)))
        p.get_actuation_input_port(inst).FixValue(ctx, np.zeros(p.num_actuated_dofs(inst)))


class DrakeJoints:
    """A scene in a discrete MultibodyPlant (SAP, lagged), its 1-DoF joints by plain name."""

    def __init__(self, path, dt, q0, targets=None):
        from pydrake.multibody.parsing import Parser
        from pydrake.multibody.plant import AddMultibodyPlant, MultibodyPlantConfig
        from pydrake.systems.analysis import Simulator
        from pydrake.systems.framework import DiagramBuilder
        builder = DiagramBuilder()
        config = MultibodyPlantConfig(time_step=dt, discrete_contact_approximation="lagged")
        self.plant, _ = AddMultibodyPlant(config, builder)
        Parser(self.plant).AddModels(path)
        self.plant.Finalize()
        self.diagram = builder.Build()
        self.dt = dt
        self.simulator = Simulator(self.diagram)
        self.ctx = self.plant.GetMyMutableContextFromRoot(self.simulator.get_mutable_context())
        p = self.plant
        self.joints = {}
        for i in p.GetJointIndices():
            j = p.get_joint(i)
            if j.num_positions() == 1 and j.num_velocities() == 1:
                self.joints[j.name()] = (j.position_start(), j.velocity_start())
        q = p.GetPositions(self.ctx)
        for name, val in q0.items():
            q[self.joints[name][0]] = val
        p.SetPositions(self.ctx, q)
        self.fix_inputs(targets or {})
        self.simulator.Initialize()

    def fix_inputs(self, targets):
        fix_pd_inputs(self.plant, self.ctx, targets)

    def trajectory(self, steps):
        """{joint: (q array, v array)} at steps 0..steps."""
        Q, V = [self.plant.GetPositions(self.ctx).copy()], [self.plant.GetVelocities(self.ctx).copy()]
        for k in range(1, steps + 1):
            self.simulator.AdvanceTo(k * self.dt)
            Q.append(self.plant.GetPositions(self.ctx).copy())
            V.append(self.plant.GetVelocities(self.ctx).copy())
        Q, V = np.array(Q), np.array(V)
        return {n: (Q[:, iq], V[:, iv]) for n, (iq, iv) in self.joints.items()}

    def time(self, steps):
        t0 = time.perf_counter()
        self.simulator.AdvanceTo(steps * self.dt)
        return (time.perf_counter() - t0) / steps


# ---- isobar --------------------------------------------------------------------------------------

def iso_cmd(path, dt, steps, q0, worlds=1, threads=1, targets=None):
    return ([ISOBAR, "run", path, "--worlds", str(worlds), "--steps", str(steps), "--dt", repr(dt), "--backend", "cpu",
             "--threads", str(threads), "--quiet", "--allow-faults"] +
            sum((["--joint-position", f"{j}={v!r}"] for j, v in q0.items()), []) +
            sum((["--joint-target", f"{j}={v!r}"] for j, v in (targets or {}).items()), []))


def iso_run(cmd):
    import json
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def iso_trajectory(path, dt, steps, q0, csv_path, targets=None):
    """{plain joint name: (q array, v array)} of world 0 from --record-joints."""
    j = iso_run(iso_cmd(path, dt, steps, q0, targets=targets) + ["--record-joints", csv_path])
    rows = {}
    with open(csv_path, newline="") as fh:
        rd = csv.reader(fh)
        next(rd)
        for step, _t, world, name, q, v, _u in rd:
            if world != "0" or "[" in name:  # world 0; ball and floating joints are not compared
                continue
            rows.setdefault(plain(name), []).append((int(step), float(q), float(v)))
    out = {}
    for n, r in rows.items():
        r.sort()
        out[n] = (np.array([x[1] for x in r]), np.array([x[2] for x in r]))
    return out, j


# ---- the comparison ------------------------------------------------------------------------------

def agreement(key, path, dt, steps, q0, targets):
    I, run = iso_trajectory(path, dt, steps, q0, os.path.join(OUT, key + "_joints.csv"), targets)
    D = DrakeJoints(path, dt, q0, targets).trajectory(steps)
    res = {"steps": steps, "dt": dt, "faulted_worlds": run["faulted_worlds"], "joints": {}}
    for n, (qd, vd) in D.items():
        if n not in I:
            res["joints"][n] = {"missing_in_isobar": True}
            continue
        qi, vi = I[n]
        m = min(len(qi), len(qd))
        dq, dv = np.abs(qi[:m] - qd[:m]), np.abs(vi[:m] - vd[:m])
        over = np.nonzero(dq > DIVERGE)[0]
        res["joints"][n] = {"dq": float(dq.max()), "dv": float(dv.max()),
                            "range": float(qd.max() - qd.min()),
                            "t_diverge": float(over[0] * dt) if len(over) else None,
                            "q_final": [float(qi[m - 1]), float(qd[m - 1])]}
    res["only_isobar"] = sorted(set(I) - set(D))
    return res


def speed(key, path, dt, steps, q0, targets, reps):
    s = {"iso1": [], "isoN": [], "drake": []}
    n_steps = max(20, steps // 10)
    for _ in range(reps):
        j = iso_run(iso_cmd(path, dt, steps, q0, targets=targets))
        s["iso1"].append(j["wall_s"] / steps)
        j = iso_run(iso_cmd(path, dt, n_steps, q0, WORLDS, 2, targets))
        s["isoN"].append(j["wall_s"] / (WORLDS * n_steps))
        s["drake"].append(DrakeJoints(path, dt, q0, targets).time(steps))
    return {k: statistics.median(v) for k, v in s.items()} | {"samples": s, "isoN_steps": n_steps}


def run_all(reps):
    """Every jointed scene: {key: {"title", "file", "agreement", "speed"} or {"error"}}."""
    out = {}
    for key, f, title, dt, steps, q0, targets in JOINT_SCENES:
        try:
            path = resolve(f)
            a = agreement(key, path, dt, steps, q0, targets)
            sp = speed(key, path, dt, steps, q0, targets, reps)
            out[key] = {"title": title, "file": f, "agreement": a, "speed": sp}
            worst = max((j.get("dq", 0) for j in a["joints"].values()), default=0)
            log(f"  {key}: max |dq| {worst:.3g} rad, {sp['iso1'] * 1e6:.3g} µs/step isobar, "
                f"{sp['drake'] * 1e6:.3g} µs/step Drake")
        except Exception as e:  # a scene one side cannot load is reported, not fatal
            out[key] = {"title": title, "file": f, "error": str(e).strip().splitlines()[0][:300]}
            log(f"  {key}: {out[key]['error']}")
    return out


def markdown(res):
    """The RESULTS.md section of the jointed scenes."""
    L = ["", "## Jointed scenes", "",
         "Joint positions over time against Drake's discrete plant (same file, same dt, same initial joint "
         "positions and PD targets; contact only in the pick). `max |Δq|` over the whole trajectory and every 1-DoF joint; `parts at` is "
         f"the first time a joint differs by more than {DIVERGE:g} rad (or m): chaotic scenes part after a "
         "while at any precision. Speed: µs per world-step (medians), isobar on one world and one thread and "
         f"on {WORLDS} worlds and two threads (per world), Drake on one world.", "",
         "| scene | joints | max \\|Δq\\| | max \\|Δv\\| | parts at | isobar 1 world | isobar "
         f"{WORLDS} worlds | Drake |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for key, r in res.items():
        if "error" in r:
            L.append(f"| {r['title']} | — | not run: {r['error']} | | | | | |")
            continue
        js = r["agreement"]["joints"]
        dq = max((j.get("dq", 0) for j in js.values()), default=0)
        dv = max((j.get("dv", 0) for j in js.values()), default=0)
        ts = [j["t_diverge"] for j in js.values() if j.get("t_diverge") is not None]
        sp = r["speed"]
        L.append(f"| {r['title']} | {', '.join(js)} | {dq:.2g} | {dv:.2g} | "
                 f"{(f'{min(ts):.3g} s' if ts else 'never')} | {sp['iso1'] * 1e6:.3g} | {sp['isoN'] * 1e6:.3g} | "
                 f"{sp['drake'] * 1e6:.3g} |")
    return L
