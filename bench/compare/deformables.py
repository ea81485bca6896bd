"""Deformable bodies in the comparison (called from compare.py): every vertex against Drake.

Scenes are rows of DEF_SCENES; each is one SDFormat file of examples/ that both sides load: the
cantilever (examples/soft_beam.sdf, held by a wall), the soft ball dropped on a rigid box
(examples/soft_ball.sdf, deformable–rigid contact) and the soft grasp (examples/soft_pick.sdf: a
PD gripper on prismatic joints closes on a soft cube and lifts it, its targets held from step 0
on both sides: isobar's --joint-target, Drake's desired-state input ports). Drake's deformable
contact leaves half-spaces out (its parser warns), and soft_pick.sdf's ground is a plane, so the
grasp runs twice: as the file is (isobar's cube stands on the ground, Drake's falls until the
fingers catch it) and with the plane swapped for a rigid box of the same top face, which both
sides take. Both sides use the lagged discrete contact
approximation (SAP): Drake 1.51.1's default (MultibodyPlantConfig.discrete_contact_approximation
"lagged"; its deformable bodies need SAP, TAMSI refuses them) and isobar's
(isoSimDef.contact.approximation = ISO_CONTACT_LAGGED, what iso_probe and `isobar run` use).
  - Drake: the same file through its Parser into a discrete MultibodyPlant (SAP, lagged, the
    file's time step), a DeformableModel body, Simulator.AdvanceTo one step at a time, the vertex
    positions and velocities from DeformableModel.GetPositions / GetVelocities at each sample.
  - isobar: bench/compare/iso_probe --vertices (every vertex at each sample), `isobar run
    --record` (each body's mean per step) and `--deformed` (world 0's final mesh, VTK), checked
    to agree with the probe.
Checked first: the materials each side read, that Drake keeps the .vtk file's vertex order
(its step-0 positions against isobar's rest positions), and which vertices the wall boundary
condition holds on each side (vertices whose velocity after one step is exactly zero: gravity
moves every other one). If the installed Drake held none although the file has a
drake:wall_boundary_condition, the wall would be applied in code (SetWallBoundaryCondition) and
the report says so.
Reported: the largest vertex-position difference over the run and at the end, relative to the
largest vertex displacement (the tip deflection, the ball's fall, the cube's lift); the first
step above THRESH; for the grasp (grasp_metrics) the cube's mean height and lift and the joints'
positions both sides; for the ball (contact_metrics)
the first sample whose difference exceeds THRESH, the fall, rebound and rest on both sides and a
Hertz estimate of the rest; the mean-position trajectories (plot); steps
where Drake's velocities did not change at all (its FEM solver skips the solve when the residual
norm is below 1e-6; isobar always solves); speed per step (speed()): isobar one world on one
thread (`isobar run`, the whole trajectory), N worlds on two threads and one world on one thread
(iso_probe --time, a window of steps after a warm-up), Drake one world."""
import contextlib
import json
import os
import platform
import re
import statistics
import subprocess
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
OUT = os.path.join(HERE, "out")
ISOBAR = os.path.join(ROOT, "build-release", "isobar")
PROBE = os.path.join(OUT, "iso_probe")
QUICK = os.environ.get("COMPARE_QUICK") == "1"
DRAKE_RESIDUAL_EXIT = 1e-6  # FemSolver: no solve when ‖b‖ < 1e-6 (drake_algorithms.md §6.3)

# key, file (examples/), title, steps, sampled every, the timing or None: a dict of the steps of
# the one-world run ("steps") and the worlds, warm-up and window of iso_probe --time on two
# threads. The ball's window starts after the impact (about step 143), where the contact is.
BEAM_TIMING = {"steps": 1000, "worlds": 1024, "warmup": 10, "window": 20}
BALL_TIMING = {"steps": 1000, "worlds": 256, "warmup": 160, "window": 20}
# the grasp's window: the cube held between the fingers (from about step 40) and rising; 64
# worlds, as the 200 untimed steps of each world cost about 1.5 ms on one thread
PICK_TIMING = {"steps": 1500, "worlds": 64, "warmup": 200, "window": 20}
DEF_SCENES = [
    ("beam", "soft_beam", "soft cantilever sagging under its weight, 1 s", 1000, 1, BEAM_TIMING),
    ("beam_rest", "soft_beam", "the same cantilever to rest, 20 s (every 100th step)", 20000, 100, None),
    ("ball", "soft_ball", "soft ball dropped 10 cm onto a rigid box, 2 s", 2000, 1, BALL_TIMING),
    ("ball_rest", "soft_ball", "the same ball to rest, 8 s (every 20th step)", 8000, 20, None),
    ("pick", "soft_pick", "soft 6 cm cube grasped and lifted by a PD gripper, 1.5 s", 1500, 1, PICK_TIMING),
    ("pick_box", "soft_pick+box", "the same grasp with the ground a rigid box (Drake ignores the plane), 1.5 s",
     1500, 1, PICK_TIMING),
]
# PD targets held from step 0 (plain joint names; examples/README.md's command line), by file
PD_TARGETS = {"soft_pick": {"lift": 0.1, "left": 0.04, "right": 0.04}}
# isobar's capacities where the automatic ones are short, by scene file: the box ground's field
# cuts the cube's bottom triangles into several polygons each, and with the fingers' the grasp
# needs more than 160 (the automatic list: 48 surface triangles × 3 geometries = 144)
CAPACITY = {"soft_pick+box": ["--max-deformable-contacts", "512"]}
# "FILE+box": FILE with its ground plane swapped for a rigid box whose top face is the plane
# (Drake's deformable contact leaves half-spaces out: reference §6.4, and its parser warns), the
# rest of the file unchanged; written to bench/compare/out with the mesh URI made absolute.
BOX_GROUND = ("<pose>0 0 -0.05 0 0 0</pose>\n          <geometry><box><size>1 1 0.1</size></box></geometry>")
# the scenes with a floor: its top face's height (m) and the pressure gradient of its compliant
# field under that face, E / (smallest half-size) = 1e7 Pa / 0.05 m (Drake's box field, reference
# §6.1), which sets the static indentation (p0 = g·depth enters as the force A·p0 at rest)
FLOOR = {"soft_ball": (0.0, 1e7 / 0.05)}
THRESH = 1e-6  # m: the vertex difference whose first crossing is reported
if QUICK:
    DEF_SCENES = [(k, f, t, min(s, 300), e, w and dict(w, steps=min(w["steps"], 300), worlds=min(w["worlds"], 64),
                                                        warmup=min(w["warmup"], 150), window=5))
                  for k, f, t, s, e, w in DEF_SCENES]


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


def base_file(f):
    return f.split("+")[0]


def scene_path(f):
    """The SDFormat file of a DEF_SCENES entry: examples/F.sdf, or the "+box" variant of one."""
    src = os.path.join(ROOT, "examples", base_file(f) + ".sdf")
    if "+" not in f:
        return src
    text, n = re.subn(r"<geometry><plane>.*?</plane></geometry>", BOX_GROUND, open(src).read(), flags=re.S)
    text = text.replace('<collision name="plane">', '<collision name="ground_box">')
    if n != 1:
        raise RuntimeError(f"{src}: expected one ground plane, found {n}")
    text = re.sub(r"<uri>([^<]*\.vtk)</uri>",
                  lambda m: "<uri>" + os.path.join(os.path.dirname(src), m.group(1)) + "</uri>", text)
    path = os.path.join(OUT, f.replace("+", "_") + ".sdf")
    open(path, "w").write(text)
    return path


def scene_dt(path):
    m = re.search(r"<max_step_size>\s*([0-9.eE+-]+)\s*</max_step_size>", open(path).read())
    return float(m.group(1)) if m else 1e-3


def file_walls(path):
    """The drake:wall_boundary_condition planes of a file, [(point, normal)] (world frame)."""
    text = open(path).read()
    out = []
    for blk in re.findall(r"<drake:wall_boundary_condition>(.*?)</drake:wall_boundary_condition>", text, re.S):
        p = re.search(r"<drake:point_on_plane>([^<]*)<", blk).group(1).split()
        n = re.search(r"<drake:outward_normal>([^<]*)<", blk).group(1).split()
        out.append((np.array(p, float), np.array(n, float)))
    return out


@contextlib.contextmanager
def _cwd(path):
    # Drake resolves relative URIs against the working directory (drake_run.py)
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


# ---- Drake ---------------------------------------------------------------------------------------

class DrakeDeformable:
    """A scene's first deformable body in a discrete plant (SAP, lagged), ready to step."""

    def __init__(self, path, dt, walls_in_code=(), targets=None):
        from pydrake.multibody.parsing import Parser
        from pydrake.multibody.plant import AddMultibodyPlant, MultibodyPlantConfig
        from pydrake.multibody.tree import DeformableBodyIndex
        from pydrake.systems.analysis import Simulator
        from pydrake.systems.framework import DiagramBuilder
        builder = DiagramBuilder()
        config = MultibodyPlantConfig(time_step=dt, discrete_contact_approximation="lagged")
        self.plant, _ = AddMultibodyPlant(config, builder)
        path = os.path.abspath(path)
        with _cwd(os.path.dirname(path)):
            Parser(self.plant).AddModels(os.path.basename(path))
        self.dm = self.plant.deformable_model()
        if self.dm.num_bodies() != 1:
            raise RuntimeError(f"{path}: Drake reads {self.dm.num_bodies()} deformable bodies, expected 1")
        self.body_id = self.dm.GetBodyId(DeformableBodyIndex(0))
        for p, n in walls_in_code:
            self.dm.SetWallBoundaryCondition(self.body_id, p, n)
        self.plant.Finalize()
        self.diagram = builder.Build()
        self.dt = dt
        self.simulator = Simulator(self.diagram)
        self.ctx = self.plant.GetMyMutableContextFromRoot(self.simulator.get_mutable_context())
        # 1-DoF joints by plain name: their position index in plant.GetPositions
        self.joints = {}
        for i in self.plant.GetJointIndices():
            j = self.plant.get_joint(i)
            if j.num_positions() == 1:
                self.joints[j.name()] = j.position_start()
        if self.plant.num_actuators():
            from joints import fix_pd_inputs
            fix_pd_inputs(self.plant, self.ctx, targets or {})
        self.simulator.Initialize()

    def config(self):
        c = self.dm.GetBody(self.body_id).config()
        return {"name": self.dm.GetBody(self.body_id).name(), "E": c.youngs_modulus(), "nu": c.poissons_ratio(),
                "rho": c.mass_density(), "alpha": c.mass_damping_coefficient(),
                "beta": c.stiffness_damping_coefficient(), "material": str(c.material_model())}

    def pv(self):
        """Vertex positions and velocities, each (n, 3)."""
        return (np.asarray(self.dm.GetPositions(self.ctx, self.body_id)).T.copy(),
                np.asarray(self.dm.GetVelocities(self.ctx, self.body_id)).T.copy())

    def trajectory(self, steps, every):
        """P, V (samples, n, 3) at steps 0, every, 2·every, ..., steps; the 1-DoF joints' positions
        at every step, {name: (steps + 1,)}; and the steps after which
        the velocities were bitwise those before it (the FEM solve skipped), with the largest
        vertex speed before the first of them and how many of them left the positions unchanged
        too (no update at all, which an early exit would not do: it still moves q by δt·v)."""
        p, v = self.pv()
        P, V, frozen = [p], [v], {"steps": [], "speed_before": None, "p_unchanged": 0}
        Q = [self.plant.GetPositions(self.ctx).copy()]
        for k in range(1, steps + 1):
            self.simulator.AdvanceTo(k * self.dt)
            p1, v1 = self.pv()
            Q.append(self.plant.GetPositions(self.ctx).copy())
            if np.array_equal(v1, v):
                if not frozen["steps"]:
                    frozen["speed_before"] = float(np.max(np.linalg.norm(v, axis=1)))
                frozen["steps"].append(k)
                frozen["p_unchanged"] += int(np.array_equal(p1, p))
            p, v = p1, v1
            if k % every == 0 or k == steps:
                P.append(p)
                V.append(v)
        Q = np.array(Q)
        return np.array(P), np.array(V), {n: Q[:, i] for n, i in self.joints.items()}, frozen

    def time(self, steps):
        t0 = time.perf_counter()
        self.simulator.AdvanceTo(steps * self.dt)
        return (time.perf_counter() - t0) / steps


def drake_scene(path, dt, targets=None):
    """The Drake scene with the file's walls held: Drake's parser applies them (1.51.1 does); if
    the installed one holds no vertex though the file has walls, they are applied in code."""
    walls = file_walls(path)
    s = DrakeDeformable(path, dt, targets=targets)
    s.simulator.AdvanceTo(dt)
    held = int(np.sum(np.all(s.pv()[1] == 0.0, axis=1)))
    if walls and held == 0:
        return (DrakeDeformable(path, dt, walls, targets),
                "code (SetWallBoundaryCondition): the parser held no vertex")
    return DrakeDeformable(path, dt, targets=targets), ("the parser (drake:wall_boundary_condition)" if walls
                                                         else "none in the file")


# ---- isobar --------------------------------------------------------------------------------------

def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def read_vertices(path):
    """P, V (samples, n, 3) and the sampled steps from iso_probe --vertices."""
    P, V, steps = [], [], []
    with open(path) as fh:
        for line in fh:
            c = line.rstrip("\n").split(",")
            x = np.array(c[2:], float).reshape(-1, 3)
            if c[1] == "p":
                P.append(x)
                steps.append(int(c[0]))
            else:
                V.append(x)
    return np.array(P), np.array(V), steps


def read_vtk_points(path):
    tok = open(path).read().split()
    i = tok.index("POINTS")
    n = int(tok[i + 1])
    return np.array(tok[i + 3:i + 3 + 3 * n], float).reshape(n, 3)


def read_record_means(path, body):
    """(steps+1, 3) world 0's mean positions of the deformable body named `body` from `isobar run
    --record` (step,time,world,body,px,py,pz,...)."""
    rows = [l.split(",") for l in open(path).read().splitlines()[1:]]
    return np.array([[float(x) for x in r[4:7]] for r in rows if r[2] == "0" and r[3] == body])


def read_record_joints(path):
    """{plain joint name: (steps+1,) q} of world 0 from `isobar run --record-joints`."""
    out = {}
    for l in open(path).read().splitlines()[1:]:
        step, _t, world, name, q = l.split(",")[:5]
        if world == "0" and "[" not in name:
            out.setdefault(name.rsplit("::", 1)[-1], []).append((int(step), float(q)))
    return {n: np.array([q for _, q in sorted(r)]) for n, r in out.items()}


def scene_args(f):
    """isobar's flags for a DEF_SCENES file: its PD targets and capacities (iso_probe takes both
    as `isobar run` does)."""
    targets = PD_TARGETS.get(base_file(f), {})
    return sum((["--joint-target", f"{j}={v!r}"] for j, v in targets.items()), []) + CAPACITY.get(f, [])


def read_vtk_tets(path):
    """(ntet, 4) vertex indices of a legacy VTK unstructured grid of tetrahedra."""
    tok = open(path).read().split()
    i = tok.index("CELLS")
    n = int(tok[i + 1])
    c = np.array(tok[i + 3:i + 3 + 5 * n], int).reshape(n, 5)
    return c[:, 1:]


def tet_com(P, tets, vol):
    """(samples, 3) mass centres: each linear tet's centroid weighted by its rest volume (uniform
    density: the exact centre of mass of the deformed mesh)."""
    return np.einsum("e,sek->sk", vol, P[:, tets].mean(axis=2)) / vol.sum()


def static_estimate(mesh, cfg, g_floor):
    """The ball's rest from continuum formulas: Hertz's approach of a sphere of the mesh's volume
    on a rigid plane under its weight, δ = (9W²/(16 R E*²))^(1/3), E* = E/(1−ν²), and the floor's
    indentation under the central Hertz pressure 3W/(2πa²), a = √(Rδ), at the floor's gradient.
    Hertz neglects the self-weight's own compression and the coarse mesh's stiffness (linear
    tets are stiffer than the continuum, more so at ν = 0.4): an order, not a check."""
    X = read_vtk_points(mesh)
    tets = read_vtk_tets(mesh)
    e = X[tets]
    vol = np.abs(np.einsum("ij,ij->i", np.cross(e[:, 1] - e[:, 0], e[:, 2] - e[:, 0]), e[:, 3] - e[:, 0])) / 6
    V = float(vol.sum())
    R = (3 * V / (4 * np.pi)) ** (1 / 3)
    W = cfg["rho"] * V * 9.81
    Es = cfg["E"] / (1 - cfg["nu"] ** 2)
    d = (9 * W ** 2 / (16 * R * Es ** 2)) ** (1 / 3)
    a = np.sqrt(R * d)
    x = 3 * W / (2 * np.pi * a ** 2) / g_floor
    return {"V": V, "R": R, "mass": cfg["rho"] * V, "W": W, "hertz": d, "a": a, "indent": x, "drop": d + x,
            "tets": tets, "vol": vol}


def contact_metrics(path, floor, t, IP, DP, dp, cfg):
    """The fall, bounce and rest of a body dropped on a floor, both sides, from the sampled
    vertices: the first contact (the lowest vertex under the floor's top), the deepest mean height
    and the highest after that (the rebound's apex), the rest (the last sample: mean and mass-centre heights,
    the lowest vertex, the lateral drift of the mean), the first sample whose vertex difference
    exceeds THRESH, and the static estimate."""
    z_top, g_floor = floor
    mesh = os.path.join(os.path.dirname(path), re.search(r"<uri>([^<]*\.vtk)</uri>", open(path).read()).group(1))
    st = static_estimate(mesh, cfg, g_floor)
    out = {"static": {k: v for k, v in st.items() if k not in ("tets", "vol")}}
    # the centre's height when the rest mesh first touches: its mass centre above its lowest vertex
    com0 = tet_com(DP[:1], st["tets"], st["vol"])[0]
    out["touch_com_z"] = float(com0[2] - DP[0][:, 2].min() + z_top)
    for side, P in (("drake", DP), ("isobar", IP)):
        mean = P.mean(axis=1)
        com = tet_com(P, st["tets"], st["vol"])
        low = P[:, :, 2].min(axis=1)
        hit = np.nonzero(low < z_top)[0]
        r = {"impact_t": float(t[hit[0]]) if len(hit) else None}
        if len(hit):
            i_min = hit[0] + int(np.argmin(mean[hit[0]:, 2]))
            rebound = i_min + int(np.argmax(mean[i_min:, 2]))
            r |= {"min_t": float(t[i_min]), "min_z": float(mean[i_min, 2]), "apex_t": float(t[rebound]),
                  "apex_z": float(mean[rebound, 2]), "apex_low": float(low[rebound])}
        r |= {"rest_z": float(mean[-1, 2]), "rest_com_z": float(com[-1, 2]), "rest_low": float(low[-1]),
              "rest_xy": mean[-1, :2].tolist(), "com_z_last_10pc": float(np.ptp(com[int(0.9 * len(com)):, 2]))}
        out[side] = r
    over = np.nonzero(dp > THRESH)[0]
    out["first_over_t"] = float(t[over[0]]) if len(over) else None
    # the largest difference from the first contact on
    after = t >= (out["drake"]["impact_t"] or 0)
    out["dp_after_impact"] = float(dp[after].max()) if after.any() else None
    return out


def grasp_metrics(targets, dt, IQ, DQ, mean_i, mean_d, isteps):
    """A gripper holding PD targets, both sides: the body's mean height at the start, its lowest
    and at the end (the lift), the mean's largest difference and its x at the end (the fingers
    push alike, so nothing holds the cube's x but friction and the order of contact); each
    targeted joint's largest |Δq|, its first step above THRESH and its end value on both sides."""
    zi, zd = mean_i[isteps, 2], mean_d[:, 2]
    out = {"sides": {}, "joints": {}}
    for side, z, x in (("isobar", zi, mean_i[isteps[-1], 0]), ("drake", zd, mean_d[-1, 0])):
        out["sides"][side] = {"z0": float(z[0]), "z_min": float(z.min()), "z_min_t": float(isteps[int(np.argmin(z))] * dt),
                              "z_end": float(z[-1]), "lift": float(z[-1] - z[0]), "x_end": float(x)}
    dz = np.abs(zi - zd)
    out["dz"] = float(dz.max())
    out["dz_t"] = float(isteps[int(np.argmax(dz))] * dt)
    for n in targets:
        qi, qd = IQ[n], DQ[n]
        m = min(len(qi), len(qd))
        d = np.abs(qi[:m] - qd[:m])
        over = np.nonzero(d > THRESH)[0]
        out["joints"][n] = {"target": targets[n], "dq": float(d.max()), "dq_t": float(int(np.argmax(d)) * dt),
                            "first_over_t": float(over[0] * dt) if len(over) else None,
                            "end_isobar": float(qi[m - 1]), "end_drake": float(qd[m - 1])}
    return out


# ---- one scene -----------------------------------------------------------------------------------

def agreement(key, f, steps, every):
    path = scene_path(f)
    dt = scene_dt(path)
    targets = PD_TARGETS.get(base_file(f), {})
    vfile, pfile = os.path.join(OUT, key + "_vertices.csv"), os.path.join(OUT, key + "_params.jsonl")
    rec, vtk = os.path.join(OUT, key + "_record.csv"), os.path.join(OUT, key + "_deformed.vtk")
    rj = os.path.join(OUT, key + "_joints.csv")
    run([PROBE, path, "--steps", str(steps), "--every", str(every), "--out", os.devnull, "--vertices", vfile,
         "--params", pfile] + scene_args(f))
    run([ISOBAR, "run", path, "--worlds", "1", "--steps", str(steps), "--backend", "cpu", "--threads", "1",
         "--record", rec, "--deformed", vtk, "--quiet"] + scene_args(f) +
        (["--record-joints", rj] if targets else []))
    IP, IV, isteps = read_vertices(vfile)
    iso_par = [json.loads(l) for l in open(pfile) if '"deformable"' in l][0]
    means = read_record_means(rec, iso_par["deformable"])
    s, wall_from = drake_scene(path, dt, targets)
    cfg = s.config()
    mism = [f"{k}: isobar {iso_par[k]}, Drake {cfg[k]}" for k in ("E", "nu", "rho", "alpha", "beta")
            if not np.isclose(iso_par[k], cfg[k], rtol=1e-15, atol=0)]
    if cfg["material"] != "MaterialModel.kLinearCorotated":
        mism.append(f"material: Drake {cfg['material']}")
    p0, _ = s.pv()
    order_dp = float(np.max(np.abs(p0 - IP[0])))
    if p0.shape != IP[0].shape or order_dp > 1e-12:
        raise RuntimeError(f"{key}: Drake's vertices at rest are not isobar's in the same order "
                           f"(shapes {p0.shape} / {IP[0].shape}, largest difference {order_dp:g} m)")
    DP, DV, DQ, frozen = s.trajectory(steps, every)
    # held vertices: exactly zero velocity after the first step (every sample of a held vertex)
    held_d = np.all(np.all(DV[1:] == 0.0, axis=2), axis=0)
    held_i = np.all(np.all(IV[1:] == 0.0, axis=2), axis=0)
    dp = np.max(np.linalg.norm(IP - DP, axis=2), axis=1)
    dv = np.max(np.linalg.norm(IV - DV, axis=2), axis=1)
    defl = np.max(np.linalg.norm(DP - DP[0:1], axis=2), axis=1)  # the tip, for a cantilever
    dmean = np.mean(DP, axis=1)
    res = {
        "file": os.path.relpath(path, ROOT), "steps": steps, "every": every, "dt": dt, "nvert": int(IP.shape[1]),
        "ntet": iso_par["ntet"], "nu": iso_par["nu"], "material_mismatches": mism, "order_dp": order_dp, "wall_from": wall_from,
        "held_isobar": int(held_i.sum()), "held_drake": int(held_d.sum()),
        "held_same": bool(np.array_equal(held_i, held_d)),
        "dp": float(dp.max()), "dp_step": int(isteps[int(np.argmax(dp))]), "dp_end": float(dp[-1]),
        "defl": float(defl.max()), "defl_end": float(defl[-1]),
        "rel": float(dp.max() / defl.max()), "rel_end": float(dp[-1] / defl[-1]),
        "dv": float(dv.max()), "vmax": float(np.max(np.linalg.norm(DV, axis=2))),
        "mean_d_end": dmean[-1].tolist(), "mean_i_end": means[-1].tolist(),
        "mean_dp": float(np.max(np.linalg.norm(means[isteps] - dmean, axis=1))),
        # isobar's own outputs against each other: --record means and --deformed against the probe
        "record_vs_probe": float(np.max(np.abs(means[isteps] - IP.mean(axis=1)))),
        "vtk_vs_probe": float(np.max(np.abs(read_vtk_points(vtk) - IP[-1]))),
        "frozen": len(frozen["steps"]), "first_frozen": frozen["steps"][0] if frozen["steps"] else None,
        "last_solved": max(set(range(1, steps + 1)) - set(frozen["steps"]), default=0),
        "frozen_speed_before": frozen["speed_before"], "frozen_p_unchanged": frozen["p_unchanged"],
        "vmax_end": float(np.max(np.linalg.norm(DV[-1], axis=1))),
        "vmax_end_isobar": float(np.max(np.linalg.norm(IV[-1], axis=1))),
    }
    over = np.nonzero(dp > THRESH)[0]
    res["first_over_step"] = int(isteps[over[0]]) if len(over) else None
    if f in FLOOR:
        res["contact"] = contact_metrics(path, FLOOR[f], np.array(isteps) * dt, IP, DP, dp, cfg)
    if targets:
        res["grasp"] = grasp_metrics(targets, dt, read_record_joints(rj), DQ, means, DP.mean(axis=1), isteps)
    traj = {"t": np.array(isteps) * dt, "mean_i": means[isteps], "mean_d": dmean, "dp": dp}
    return res, traj


def speed(f, timing, reps, wait):
    """Seconds per step, medians over reps interleaved repetitions: isobar one world on one thread
    (`isobar run`, the whole timing["steps"] trajectory), timing["worlds"] worlds on two threads
    and one world on one thread over the same window (iso_probe --time: timing["warmup"] steps
    untimed, then timing["window"]), Drake one world (the whole trajectory)."""
    path = scene_path(f)
    dt = scene_dt(path)
    targets = PD_TARGETS.get(base_file(f), {})
    ta = scene_args(f)
    steps, worlds, warm, n = timing["steps"], timing["worlds"], timing["warmup"], timing["window"]
    s = {"iso1": [], "isoN": [], "iso1w": [], "drake": []}
    busy = []  # wait()'s busy fraction of all CPUs (another job) before each sample
    for _ in range(reps):
        busy.append(wait())
        j = run([ISOBAR, "run", path, "--worlds", "1", "--steps", str(steps), "--backend", "cpu", "--threads", "1",
                 "--quiet"] + ta)
        s["iso1"].append(j["wall_s"] / steps)
        busy.append(wait())
        j = run([PROBE, path, "--time", "--worlds", str(worlds), "--threads", "2", "--warmup", str(warm),
                 "--steps", str(n)] + ta)
        s["isoN"].append(j["wall_s"] / (worlds * n))
        busy.append(wait())
        j = run([PROBE, path, "--time", "--worlds", "1", "--threads", "1", "--warmup", str(warm), "--steps", str(n)] + ta)
        s["iso1w"].append(j["wall_s"] / n)
        d = DrakeDeformable(path, dt, targets=targets)  # built before the timing: only AdvanceTo is timed
        busy.append(wait())
        s["drake"].append(d.time(steps))
    return {k: statistics.median(v) for k, v in s.items()} | {"samples": s, "timing": timing,
                                                               "busy": [b for b in busy if b is not None]}


def run_all(reps, wait=lambda: None):
    """Every deformable scene: {key: {"title", "agreement", "speed"} or {"title", "error"}}, and
    the trajectories for the plot."""
    out, trajs = {}, {}
    for key, f, title, steps, every, timing in DEF_SCENES:
        try:
            a, trajs[key] = agreement(key, f, steps, every)
            log(f"  {key}: max vertex |dp| {a['dp']:.3g} m (rel {a['rel']:.2g}), end {a['dp_end']:.3g} m, "
                f"Drake skipped {a['frozen']} solves")
            sp = speed(f, timing, reps, wait) if timing else None
            if sp:
                log(f"  {key}: {sp['iso1'] * 1e6:.3g} µs/step isobar, {sp['isoN'] * 1e6:.3g} µs/world-step "
                    f"({timing['worlds']} worlds, 2 threads), {sp['drake'] * 1e6:.3g} µs/step Drake")
            out[key] = {"title": title, "agreement": a, "speed": sp}
        except Exception as e:  # a scene one side cannot run is reported, not fatal
            out[key] = {"title": title, "error": str(e).strip().splitlines()[0][:300]}
            log(f"  {key}: {out[key]['error']}")
    return out, trajs


# ---- report --------------------------------------------------------------------------------------

def plot(trajs, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    keys = list(trajs)
    fig, axes = plt.subplots(len(keys), 3, figsize=(12, 3.3 * len(keys)), squeeze=False)
    for row, key in zip(axes, keys):
        tr = trajs[key]
        for ax, (j, name) in zip(row[:2], ((2, "z"), (1, "y"))):
            ax.plot(tr["t"], tr["mean_i"][:, j], lw=2.2, alpha=0.55, label="isobar")
            ax.plot(tr["t"], tr["mean_d"][:, j], "k--", lw=0.9, label="Drake")
            ax.set_title(f"{key}: mean vertex {name} (m)", fontsize=10)
        row[2].semilogy(tr["t"], np.maximum(tr["dp"], 1e-17), lw=1)
        row[2].set_title(f"{key}: max over vertices |p_isobar − p_Drake| (m)", fontsize=10)
        for ax in row:
            ax.set_xlabel("t (s)", fontsize=8)
            ax.tick_params(labelsize=8)
            ax.grid(alpha=0.3)
        row[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=72)
    plt.close(fig)


def contact_lines(res):
    """The RESULTS.md lines of the scenes with a floor: fall, rebound and rest both sides."""
    L = []
    for key, r in res.items():
        c = r.get("agreement", {}).get("contact")
        if not c:
            continue
        a, st = r["agreement"], c["static"]
        mm = lambda x: f"{x * 1e3:.4f}"  # noqa: E731
        side = {n: c[n] for n in ("isobar", "drake")}
        first = (f"first exceeds {THRESH:g} m at t = {c['first_over_t']:.3f} s" if c["first_over_t"] is not None
                 else f"never exceeds {THRESH:g} m (largest from the first contact on: {c['dp_after_impact']:.2g} m)")
        L.append(f"- {key} (sampled every {a['every']} step{'s' if a['every'] > 1 else ''}): the vertex difference {first}.")
        rows = []
        for n, s in side.items():
            if s["impact_t"] is None:
                rows.append(f"{n}: no contact")
                continue
            rows.append(
                f"{n}: first contact t = {s['impact_t']:.3f} s; deepest mean height {mm(s['min_z'])} mm at "
                f"{s['min_t']:.3f} s; rebound apex {mm(s['apex_z'])} mm at {s['apex_t']:.3f} s (lowest vertex "
                f"{mm(s['apex_low'])} mm); at the end mean {mm(s['rest_z'])} mm, mass centre {mm(s['rest_com_z'])} mm "
                f"(its range over the last tenth of the run {s['com_z_last_10pc'] * 1e3:.2g} mm), lowest vertex "
                f"{mm(s['rest_low'])} mm, mean (x, y) ({mm(s['rest_xy'][0])}, {mm(s['rest_xy'][1])}) mm")
        L.append("  - " + "\n  - ".join(rows))
        d = side["drake"]
        L.append(
            f"  - static estimate: mass {st['mass']:.4g} kg (the mesh's volume), R = {st['R'] * 1e3:.2f} mm (its "
            f"volume's sphere); Hertz on a rigid plane δ = {mm(st['hertz'])} mm, contact radius {mm(st['a'])} mm, the "
            f"floor's indentation under the central pressure {mm(st['indent'])} mm: mass centre at "
            f"{mm(c['touch_com_z'] - st['drop'])} mm (touching at {mm(c['touch_com_z'])} mm, a drop of "
            f"{mm(st['drop'])} mm); the simulated drop {mm(c['touch_com_z'] - d['rest_com_z'])} mm "
            f"({(c['touch_com_z'] - d['rest_com_z']) / st['drop']:.2f} of the estimate). An order, not a check: Hertz "
            f"leaves out the self-weight's own compression, and the mesh (about one tet across the contact radius, "
            f"linear tets at ν = {r['agreement']['nu']:g}) is stiffer than the continuum.")
    return ["", "The soft ball (mean vertex heights above the floor's top face; mass centre: the tets' centroids "
            "weighted by their rest volumes):", ""] + L if L else []


def grasp_lines(res):
    """The RESULTS.md lines of the scenes with PD targets: the lift and the joints, both sides."""
    L = []
    for key, r in res.items():
        g = r.get("agreement", {}).get("grasp")
        if not g:
            continue
        a = r["agreement"]
        mm = lambda x: f"{x * 1e3:.3f}"  # noqa: E731
        first = (f"first exceeds {THRESH:g} m at step {a['first_over_step']}" if a["first_over_step"] is not None
                 else f"never exceeds {THRESH:g} m")
        L.append(f"- {key} ({a['file']}): the vertex difference {first}; largest {a['dp']:.3g} m (step "
                 f"{a['dp_step']}), at the end {a['dp_end']:.3g} m; the mean height's largest difference "
                 f"{mm(g['dz'])} mm (t = {g['dz_t']:.3f} s).")
        for n, sd in g["sides"].items():
            L.append(f"  - {n}: mean height {mm(sd['z0'])} mm at the start, lowest {mm(sd['z_min'])} mm "
                     f"(t = {sd['z_min_t']:.3f} s), {mm(sd['z_end'])} mm at the end: lifted {mm(sd['lift'])} mm; "
                     f"mean x at the end {mm(sd['x_end'])} mm")
        js = "; ".join(f"{n} (target {j['target']:g}): end isobar {mm(j['end_isobar'])} mm, Drake "
                       f"{mm(j['end_drake'])} mm, largest |Δq| {mm(j['dq'])} mm at t = {j['dq_t']:.3f} s, first "
                       + (f"above {THRESH:g} m at t = {j['first_over_t']:.3f} s" if j["first_over_t"] is not None
                          else f"never above {THRESH:g} m")
                       for n, j in g["joints"].items())
        L.append(f"  - joints: {js}")
    if not L:
        return []
    return ["", "The soft grasp (PD targets held from step 0, both sides; joint values in mm):", ""] + L + [
        "", "Drake's deformable contact leaves half-spaces out (its parser warns: \"Rigid (non-deformable) half "
        "spaces are not currently supported for deformable contact\"; reference §6.4), so in *pick* Drake's cube "
        "falls from step 1 until the fingers close on it while isobar's stands on the ground: the two part at "
        "once and Drake lifts the cube from lower. *pick_box* swaps the plane for a rigid box with the same top "
        "face, which both take; there the runs agree to round-off through the fingers' first contacts (this "
        "needs the deformable–rigid dissipation weighted as Drake's DeformableDriver weights it, A·C against "
        "k = A·g; weighted by the rigid field's own gradient they differed by 5e-9 m after step 1 and by "
        "1e-6 m at step 9), then a one-step "
        "jump to about 3e-11 m at step 43 that is not traced here grows by roughly a decade every 10 to 15 "
        "steps while the fingers squeeze the cube, and levels off below a millimetre; the cube's lift and the "
        "joints stay within the sizes above. The cube's surface vertices under the fingers vibrate on both "
        "sides (largest vertex speeds about 1 m/s; the carriage moves at 0.2 m/s at most), so *max \\|Δv\\|* "
        "is of that size: a phase difference, not a drift."]


def markdown(res, reps, machine=""):
    """The RESULTS.md section "Deformable bodies"."""
    L = ["", "## Deformable bodies", "",
         "Every vertex of isobar's deformable body (bench/compare/iso_probe --vertices) against Drake's "
         "(`DeformableModel.GetPositions` after `Simulator.AdvanceTo`, one step at a time), same file, same "
         "time step, from rest. *max \\|Δp\\|*: the largest vertex-position difference over the samples; "
         "*rel*: divided by the largest vertex displacement in Drake over the run (the beam's tip deflection, "
         "the ball's fall, the cube's lift; "
         "*at end*: both at the last step). *Δ mean*: the largest difference of the mean vertex position "
         "(isobar's `isobar run --record` rows). *skipped solves*: steps after which Drake's vertex velocities "
         "were bitwise unchanged, i.e. its FEM solver exited early on ‖residual‖ < 1e-6 (isobar always "
         "solves). Regenerate alone with `COMPARE_ONLY=deformables bash bench/compare/run.sh`.", "",
         "| scene | vertices / tets | steps | max \\|Δp\\| (m) | rel | at end (m) | rel at end | max \\|Δv\\| (m/s) "
         "| Δ mean (m) | skipped solves |", "|---|---|---|---|---|---|---|---|---|---|"]
    checks = []
    for key, r in res.items():
        if "error" in r:
            L.append(f"| {r['title']} | — | not run: {r['error']} | | | | | | | |")
            continue
        a = r["agreement"]
        sk = (f"{a['frozen']} (first {a['first_frozen']}, last solved {a['last_solved']})" if a["frozen"]
              else "0")
        L.append(f"| {r['title']} | {a['nvert']} / {a['ntet']} | {a['steps']} | {a['dp']:.2g} (step {a['dp_step']}) "
                 f"| {a['rel']:.2g} | {a['dp_end']:.2g} | {a['rel_end']:.2g} | {a['dv']:.2g} | {a['mean_dp']:.2g} | {sk} |")
        checks.append(
            f"- {key}: materials {'equal' if not a['material_mismatches'] else 'differ: ' + '; '.join(a['material_mismatches'])}; "
            f"Drake's rest vertices equal isobar's in the file's order (largest difference {a['order_dp']:.2g} m, "
            f"so Drake does not reorder); wall applied by {a['wall_from']}: {a['held_drake']} vertices held in Drake, "
            f"{a['held_isobar']} in isobar, {'the same ones' if a['held_same'] else 'NOT the same ones'}; largest displacement "
            f"{a['defl']:.4g} m (at end {a['defl_end']:.4g} m); mean at end isobar "
            f"({', '.join(f'{x:.9f}' for x in a['mean_i_end'])}), Drake ({', '.join(f'{x:.9f}' for x in a['mean_d_end'])}); "
            f"isobar's --record means and --deformed VTK against the probe: {a['record_vs_probe']:.2g} / "
            f"{a['vtk_vs_probe']:.2g} m."
            + (f" Drake's skipped solves: the first after a step whose largest vertex speed was "
               f"{a['frozen_speed_before']:.2g} m/s; {a['frozen_p_unchanged']} of them left the positions "
               f"unchanged too (0: each still moved q by δt·v, an early exit, not a missed update); largest vertex "
               f"speed at the end: Drake {a['vmax_end']:.2g} m/s, isobar {a['vmax_end_isobar']:.2g} m/s."
               if a["frozen"] else ""))
    L += ["", "Checks:", ""] + checks + contact_lines(res) + grasp_lines(res)
    L += ["", "![deformables](deformables.png)", "",
          f"Speed, µs per step (medians of {reps} interleaved repetitions; {machine}): isobar one world on one "
          f"thread (`isobar run --threads 1`, the whole trajectory), N worlds on two threads per world-step and one "
          f"world on one thread over the same window (`iso_probe --time`, a window of steps after a warm-up: for "
          f"the ball, after the impact, in contact), Drake one world (`Simulator.AdvanceTo`, the whole trajectory; "
          f"the diagram built beforehand).", "",
          "| scene | steps | isobar 1 world, 1 thread | isobar N worlds, 2 threads (N; warm-up, window) "
          "| isobar 1 world, 1 thread, same window | Drake | Drake / isobar 1 world |", "|---|---|---|---|---|---|---|"]
    notes = []
    for key, r in res.items():
        sp = r.get("speed")
        if not sp:
            continue
        tm = sp["timing"]
        L.append(f"| {key} | {tm['steps']} | {sp['iso1'] * 1e6:.4g} | {sp['isoN'] * 1e6:.4g} "
                 f"({tm['worlds']}; {tm['warmup']}, {tm['window']}) | {sp['iso1w'] * 1e6:.4g} | {sp['drake'] * 1e6:.4g} "
                 f"| {sp['drake'] / sp['iso1']:.3g}x |")
        if sp["busy"]:
            notes.append(f"Each sample first waited for idle CPUs (compare.py's wait_quiet, 150 s in all); "
                         f"{sum(b > 0.075 for b in sp['busy'])} of {len(sp['busy'])} {key} samples still started with "
                         f"another job using over 15 % of a core (largest {max(sp['busy']) * 200:.0f} % of one core).")
    return L + [""] + notes if notes else L


def merge_section(results_md, lines):
    """Replace (or append) the "## Deformable bodies" section of RESULTS.md, up to the next "## "."""
    text = open(results_md).read() if os.path.exists(results_md) else ""
    sec = "\n".join(lines).strip("\n") + "\n"
    m = re.search(r"^## Deformable bodies\n.*?(?=^## |\Z)", text, re.S | re.M)
    if m:
        text = text[:m.start()] + sec + ("\n" if m.end() < len(text) else "") + text[m.end():]
    else:
        text = text.rstrip("\n") + "\n\n" + sec
    open(results_md, "w").write(text)


def report(reps, wait):
    """Every scene, the plot deformables.png, and the RESULTS.md lines (with the machine and the
    load average around the runs)."""
    load = " ".join(open("/proc/loadavg").read().split()[:3])
    res, trajs = run_all(reps, wait)
    load += " / " + " ".join(open("/proc/loadavg").read().split()[:3])
    plot(trajs, os.path.join(HERE, "deformables.png"))
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")),
               platform.processor())
    machine = f"{cpu}, {os.cpu_count()} CPUs, load average before / after {load}"
    return res, markdown(res, reps, machine)


def main_only(reps, wait):
    """COMPARE_ONLY=deformables: these scenes alone; their section of RESULTS.md is replaced and
    results.json's "deformables" entry updated, the rest of both kept."""
    import logging
    logging.getLogger("drake").setLevel(logging.ERROR)
    os.makedirs(OUT, exist_ok=True)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    log(f"deformable bodies only: every vertex against Drake, speed ({reps} repetitions)")
    res, lines = report(reps, wait)
    merge_section(os.path.join(HERE, "RESULTS.md"), lines)
    path = os.path.join(HERE, "results.json")
    data = json.load(open(path)) if os.path.exists(path) else {}
    data["deformables"] = res
    json.dump(data, open(path, "w"), indent=1, default=float)
    log("done: the deformable section of bench/compare/RESULTS.md")
