#!/usr/bin/env python3
"""A GPU cost model of isobar's step: PREDICTIONS for an H100 SXM, nothing measured on a GPU.

For each scene and stage: the items per world and their kind (one thread per world, per
(world, pair), per (world, candidate slot)), the flops and bytes read+written per world-step,
and from them three limits on an H100 SXM: the memory-bound time (bytes / HBM bandwidth), the
compute-bound time (flops / FP64 non-tensor peak) and the latency-bound time of one thread per
item (a dependent FP64 chain per thread, few threads resident). The stage's predicted time is
the largest of the three plus its launch overheads; world-steps/s = worlds / Σ stages.

Inputs and their provenance:
  * bench/results/gpu_counts.jsonl: per scene, measured on the CPU backend (bench/gpu_counts.c,
    one world, one thread, the scene's own trajectory): nv, bodies, contact faces and
    constraints per step, hydroelastic candidates (sampled), Newton and line-search iterations
    per step, capacities, bytes per world, and each stage's CPU µs per step.
  * The per-item operation counts below (OPS_*): counted from the code's loops
    (kernels/sap/solve.h, kernels/sap/contact.h, kernels/linalg/cholesky.h, kernels/hydro/,
    kernels/fem/), rounded; where a loop's trip count depends on geometry (clipping, BVH
    walks, the sparse FEM factor) the figure is an estimate and says so.
  * Sizes in bytes from the data table (host/step/step_data.h) and the structs it holds.

Usage: python3 bench/gpu_model.py [--json] [--counts FILE]   (stdlib only)
"""
import argparse
import csv
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# ---- the device (H100 SXM5, public figures) -------------------------------------------------
H100 = dict(
    hbm_Bps=3.35e12,        # HBM3 bandwidth
    l2_Bps=5.5e12,          # L2 read bandwidth: an ASSUMED figure (not on the data sheet); the
                            # model's shared assets (tets, BVH nodes) are read from L2, not HBM
    fp64_flops=34e12,       # FP64 vector (non-tensor) peak; the 67 TF figure needs DMMA
    sms=132,
    threads_per_sm=2048,
    regs_per_sm=65536,
    clock_hz=1.98e9,        # boost clock
    # A thread of scalar FP64 code whose next operation waits on the last: ~8 cycles per
    # dependent FP64 op (FMA latency ~4-8 cycles plus issue and L1 hits; global misses cost far
    # more). An ASSUMPTION to be measured (first measurements, gpu_model.md).
    cycles_per_dep_op=8.0,
    launch_s=4e-6,          # one kernel launch and its tail on a stream, without a CUDA graph
    launch_graph_s=1.5e-6,  # the same inside a captured graph
)

# Registers per thread of each kernel: the static review's ptxas figures (cuda_review.md, at
# af2b189) where the kernel existed; ASSUMED 128 otherwise (the solve and the fem items are
# large inlined per-world loops, like sap_prepare's 108).
REGS = dict(kinematics=114, bvh=112, narrow=140, points=255, constraints=108, solve=128,
            fem=128, integrate=37)

# ---- per-item operation counts (flops) --------------------------------------------------------
OPS_POSE = 120            # per body or geometry: quaternion → R (~30), compose X (~60), copy
OPS_BOX_TEST = 60         # per BVH node pair: box of B into A's frame and the overlap test
BVH_PAIRS_PER_CAND = 4.0  # ESTIMATE: node pairs visited per candidate found (count and emit)
OPS_NARROW = {            # per candidate, one pass (the GPU computes each twice: count, emit)
    "halfspace": 300,     # 4 signed distances, the tet cut by the plane, area and centroid
    "tri-tet": 1000,      # a triangle clipped by a tet's 4 planes (≤ 7 vertices), centroid
    "tet-tet": 1500,      # the equal-pressure plane, a tet's slice clipped by 4 planes, moments
    "none": 0,
}
OPS_EMPTY_SLOT = 20       # a candidate slot past the world's count: read the count, return
OPS_POINT_PAIR = 600      # per point-contact pair: the analytic or GJK query (ESTIMATE)
OPS_CON_SETUP = 350       # per contact constraint: frame, k, φ0, lever arms, Delassus estimate
OPS_FREE_BODY = 400       # per free body: M, v*, the 6×6 block, gravity
OPS_GRAD = 250            # per contact per gradient pass: J·v (2 blocks 3×6) and the law, γ, G
OPS_HESS = 300            # per contact per Newton iteration, free bodies (kernels/sap/hessian_rigid.h):
                          # Γ = R·G·Rᵀ (45 products), Γ·[r]× per side (2×18) and [r]×·Γ·[r]× three
                          # times (3×18), ~135 products and as many adds, summed per run of
                          # contacts on the same cliques; H written once per run, not per contact
                          # (was 860: G·J and Jᵀ(GJ) per contact, into H)
OPS_LS_EVAL = 200         # per contact per line-search evaluation without a workspace (the GPU):
                          # J·v and J·Δv from the record, the law and its derivatives
OPS_TET = 1100            # per tet per step (kernels/fem/element.h): F twice, the polar rotation
                          # (Newton's iteration, ~3 steps of an adjugate), the 10 stored 3×3 blocks
                          # of T, one stress (damping folded in) and the residual's four products
OPS_INTEGRATE = 80        # per body: v → q, quaternion renormalisation

# Bytes (from the data table's types)
B_XFORM = 96              # xform: R (9) + p (3) doubles
B_CAND = 12               # three ints per candidate
B_REC = 104               # contactRec
B_CON = 152               # sapCon
B_TET_READ = 2 * (4 * 4 + 4 * 24 + 4 * 8)  # two tets: indices, posed vertices, pressures
B_BVH_NODE = 56           # a node's box and children (bvhNode)


def chol_flops(n):
    """Dense Cholesky factor (n³/3) plus the two triangular solves (2n²)."""
    return n ** 3 / 3.0 + 2.0 * n ** 2


def resident_threads(dev, regs):
    per_sm = min(dev["threads_per_sm"], dev["regs_per_sm"] // (8 * math.ceil(regs / 8)))
    return dev["sms"] * per_sm


def stage_time(dev, nw, st, graph=False):
    """The limits of one stage for nw worlds, and the prediction (s per step)."""
    t_mem = max(nw * st["bytes"] / dev["hbm_Bps"], nw * st.get("l2_bytes", 0.0) / dev["l2_Bps"])
    t_comp = nw * st["flops"] / dev["fp64_flops"]
    threads = nw * st["items"]
    rate = dev["clock_hz"] / dev["cycles_per_dep_op"]  # dependent ops per s, per thread
    live = min(threads, resident_threads(dev, st["regs"]))
    # the longest thread's chain, or all the chains shared by the threads that fit at once
    chains = nw * st.get("chain_total", st["serial_ops"] * st["items"])
    t_lat = max(st["serial_ops"] / rate, chains / (live * rate)) if live else 0.0
    waves = math.ceil(threads / live) if live else 0
    launch = st["launches"] * (dev["launch_graph_s"] if graph else dev["launch_s"])
    t = max(t_mem, t_comp, t_lat) + launch
    bound = max((t_mem, "memory"), (t_comp, "compute"), (t_lat, "latency"))[1]
    if bound == "memory" and nw * st.get("l2_bytes", 0.0) / dev["l2_Bps"] >= nw * st["bytes"] / dev["hbm_Bps"]:
        bound = "L2"
    return dict(t_mem=t_mem, t_comp=t_comp, t_lat=t_lat, launch=launch, t=t, bound=bound,
                threads=threads, resident=live, waves=waves)


SCENES = {  # key: (examples file, narrow kind, pairs that run a BVH walk, note)
    "box": ("compliant_box_on_plane.sdf", "halfspace", 1, "compliant box on a rigid plane"),
    "incline_below": ("incline_below_friction.sdf", "halfspace", 1, "block on a 20° incline"),
    "incline_above": ("incline_above_friction.sdf", "halfspace", 1, "block on a 35° incline"),
    "sphere": ("sphere_on_box.sdf", "tet-tet", 1, "compliant sphere dropped on compliant box"),
    "stack": ("stack_of_five_boxes.sdf", "tet-tet", 5, "stack of five compliant boxes"),
    "coin": ("coin_slide_spin.sdf", "tri-tet", 1, "coin sliding and spinning"),
    "point": ("point_contact.sdf", "none", 0, "point contact: box and sphere"),
    "pick": ("pick.sdf", "tri-tet", 3, "gripper lifting a compliant cube"),
    "soft_ball": ("soft_ball.sdf", "none", 0, "deformable ball (216 vertices, 750 tets) on a box"),
    "soft_beam": ("soft_beam.sdf", "none", 0, "deformable beam (144 vertices, 360 tets), no contact"),
}
TETS = {"soft_ball": 750, "soft_beam": 360}    # the meshes' CELLS counts
FEM_CONTACTS_ASSUMED = 64                      # soft ball: deformable contacts per step, ASSUMED
                                               # (the public API counts rigid constraints only)
CPU_FLOPS_PER_US = 3000.0  # to turn a measured CPU stage time into work where the loops' trip
                           # counts are data-dependent (sparse FEM factor, Schur solves): an
                           # ASSUMED 1 FP64 flop per cycle at ~3 GHz on that code


def stages(key, c):
    """Per-world work of every stage that runs for scene key, from its counts c."""
    _, kind, walk_pairs, _ = SCENES[key]
    nb, ng, nv = c["bodies"], c["geometries"], c["nv"]
    m = c["constraints_mean"]
    faces, cand = c["faces_mean"], c["candidates_mean"]
    newton, ls = c["newton_mean"], c["ls_per_step"]
    cap_cand = c["max_candidates"]
    cpu = c["stage_us_per_step"]
    out = []
    # 1 kinematics: one thread per world (body_pose), then per (world, geometry) (hs_pose)
    if nb:
        out.append(dict(stage="kinematics", kind="world, then world×geometry", items=1,
                        flops=OPS_POSE * (nb + ng), serial_ops=OPS_POSE * nb,
                        bytes=nb * (7 * 8 + 6 * 8) + (nb + ng) * B_XFORM, regs=REGS["kinematics"],
                        launches=2, source="counted"))
    # 2-4 collide: per (world, pair) BVH count and emit, per world scans, per (world, slot)
    # narrow count and emit over the whole candidate capacity (host/step/step_collide.c)
    if kind not in ("none",):
        bvh_pairs = BVH_PAIRS_PER_CAND * max(cand, 1.0)
        fl_bvh = 2 * bvh_pairs * OPS_BOX_TEST
        fl_nar = 2 * cand * OPS_NARROW[kind]
        out.append(dict(stage="collide: BVH mid phase", kind="world×pair", items=walk_pairs,
                        flops=fl_bvh, serial_ops=fl_bvh / walk_pairs,
                        bytes=2 * cand * B_CAND + walk_pairs * 12, l2_bytes=2 * bvh_pairs * 2 * B_BVH_NODE,
                        regs=REGS["bvh"], launches=3, source="estimated (node pairs per candidate)"))
        out.append(dict(stage="collide: narrow phase", kind="world×candidate slot", items=cap_cand,
                        flops=fl_nar, serial_ops=2 * OPS_NARROW[kind],
                        bytes=2 * cand * B_CAND + faces * B_REC + cap_cand * 4, l2_bytes=2 * cand * B_TET_READ,
                        chain_total=2 * (cand * OPS_NARROW[kind] + (cap_cand - cand) * OPS_EMPTY_SLOT),
                        regs=REGS["narrow"], launches=3, source="estimated (clip loop sizes)"))
    if key == "point":
        npair = 2
        out.append(dict(stage="points", kind="world×point pair", items=npair,
                        flops=npair * OPS_POINT_PAIR, serial_ops=OPS_POINT_PAIR, bytes=npair * 160,
                        regs=REGS["points"], launches=1, source="estimated"))
    tets = TETS.get(key, 0)
    sap_nv = nv
    if tets:
        m = m + (FEM_CONTACTS_ASSUMED if key == "soft_ball" else 0)
        nvert = c["vertex_dofs"] // 3
        fl_el = tets * OPS_TET
        out.append(dict(stage="fem elements", kind="world", items=1, flops=fl_el, serial_ops=fl_el,
                        bytes=tets * (16 + 12 * 8 + 9 * 8 * 2) + nvert * 48 + c["bytes_per_world"] // 2,
                        regs=REGS["fem"], launches=1, source="counted per tet"))
        for name in ("fem factor", "fem contact", "fem schur"):
            us = cpu.get(name, 0.0)
            if us < 1.0:
                continue
            fl = us * CPU_FLOPS_PER_US
            out.append(dict(stage=name, kind="world", items=1, flops=fl, serial_ops=fl,
                            bytes=c["bytes_per_world"] if name != "fem contact" else tets * 64,
                            regs=REGS["fem"], launches=1, source="from CPU time (assumed flop rate)"))
        if key == "soft_ball":
            sap_nv = 3 * 64  # the SAP unknowns: 64 participating vertices (the automatic capacity)
    # 5-6 constraints and free motion: one thread per world (sap_prepare)
    fl = m * OPS_CON_SETUP + nb * OPS_FREE_BODY
    out.append(dict(stage="constraints", kind="world", items=1, flops=fl, serial_ops=fl,
                    bytes=m * (B_REC + B_CON) + nb * (36 + 12) * 8 + nv * 16, regs=REGS["constraints"],
                    launches=1, source="counted"))
    # 7 solve: one thread per world, the whole Newton loop (sap_solve_world), dense H, no
    # workspace on the GPU (every pass forms the Jacobian blocks from the record)
    if sap_nv and (m > 0 or newton > 0):
        ls_evals = newton * 3 + ls  # α=0, α_max, the final cost, plus the Newton-bisection steps
        a_reals = sap_nv * sap_nv if tets else 36 * nb
        per_newton = m * (OPS_GRAD + OPS_HESS) + a_reals * 2 + chol_flops(sap_nv)
        fl = (m * OPS_GRAD + 2 * a_reals) + newton * per_newton + ls_evals * (m * OPS_LS_EVAL + 4 * a_reals)
        hb = sap_nv * (sap_nv + 1) / 2 * 8  # the lower triangle of H, in global memory
        bytes_ = (1 + newton + ls_evals) * m * (B_REC + B_CON) + newton * 3 * hb + (1 + ls_evals) * a_reals * 8
        out.append(dict(stage="solve", kind="world", items=1, flops=fl, serial_ops=fl, bytes=bytes_,
                        regs=REGS["solve"], launches=1, source="counted (measured iterations)",
                        chol_share=newton * chol_flops(sap_nv) / fl if fl else 0.0, nv=sap_nv))
    # 8 integrate (+ fem finish)
    fl = nb * OPS_INTEGRATE + (c["vertex_dofs"] * 10 if tets else 0)
    out.append(dict(stage="integrate", kind="world", items=1, flops=fl, serial_ops=fl,
                    bytes=nb * 13 * 8 * 2 + c["vertex_dofs"] * 8 * 4, regs=REGS["integrate"],
                    launches=2, source="counted"))
    return out


def predict(key, c, nw, dev=H100, graph=False, solve_scale=None):
    st = stages(key, c)
    if solve_scale:  # what-if: a replacement that divides the solve's dependent chain
        for s in st:
            if s["stage"] in solve_scale:
                s["serial_ops"] /= solve_scale[s["stage"]]["chain"]
                s["items"] *= solve_scale[s["stage"]].get("threads", 1)
                s["flops"] /= solve_scale[s["stage"]].get("flops", 1)
    rows = []
    total = 0.0
    for s in st:
        t = stage_time(dev, nw, s, graph)
        total += t["t"]
        rows.append(dict(s, **t))
    return rows, total


def chol_table(dev=H100):
    """One dense Cholesky (factor + solve) per world at the sizes the scenes have: the thread-per-
    matrix time (dependent chain) and the batch's compute-bound time at 4096 and 16384."""
    rate = dev["clock_hz"] / dev["cycles_per_dep_op"]
    rows = []
    for n in (6, 9, 12, 24, 30, 48, 96, 192, 243):
        f = chol_flops(n)
        rows.append(dict(n=n, flops=f, bytes=n * (n + 1) / 2 * 8 * 2 + n * 16,
                         thread_us=f / rate * 1e6,
                         # a chain of ~n column steps of ~2n dependent ops each when a warp or block
                         # owns the matrix (each column's updates spread over the lanes)
                         warp_us=(n * (2 * n + 20)) / rate * 1e6,
                         compute_us_4096=4096 * f / dev["fp64_flops"] * 1e6,
                         compute_us_16384=16384 * f / dev["fp64_flops"] * 1e6,
                         # a separate batched factor + solve (cuSOLVER potrfBatched + potrsBatched, or
                         # a kernel of one's own): two launches per Newton iteration, the full n×n
                         # matrices read and written once from HBM, at best the FP64 peak
                         batched_us_4096=(2 * dev["launch_s"] + max(4096 * f / dev["fp64_flops"],
                                                                     4096 * n * n * 16 / dev["hbm_Bps"])) * 1e6))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--counts", default=os.path.join(HERE, "results", "gpu_counts.jsonl"))
    ap.add_argument("--json", action="store_true", help="print the model as JSON")
    a = ap.parse_args()
    counts = {}
    for line in open(a.counts):
        c = json.loads(line)
        key = next(k for k, v in SCENES.items() if c["scene"].endswith(v[0]))
        counts[key] = c
    if a.json:
        out = {k: {str(nw): predict(k, c, nw)[0] for nw in (4096, 16384)} for k, c in counts.items()}
        print(json.dumps(out, indent=1))
        return
    print("PREDICTIONS for one H100 SXM (nothing here was measured on a GPU). Device figures: "
          f"{H100['hbm_Bps']/1e12:.2f} TB/s, {H100['fp64_flops']/1e12:.0f} TFLOP/s FP64 non-tensor, "
          f"{H100['sms']} SMs × {H100['threads_per_sm']} threads, {H100['cycles_per_dep_op']:.0f} cycles per "
          f"dependent FP64 op at {H100['clock_hz']/1e9:.2f} GHz, {H100['launch_s']*1e6:.1f} µs per launch.\n")
    print("## Counts per world-step (measured on the CPU backend: bench/gpu_counts.c)\n")
    print("| scene | nv | bodies | constraints | faces | candidates | Newton it. | LS it. | bytes/world | CPU µs/step (1 thread) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for k, c in counts.items():
        cpu = sum(c["stage_us_per_step"].values())
        print(f"| {k} | {c['nv']} | {c['bodies']} | {c['constraints_mean']:.1f} | {c['faces_mean']:.1f} | "
              f"{c['candidates_mean']:.0f} | {c['newton_mean']:.2f} | {c['ls_per_step']:.2f} | "
              f"{c['bytes_per_world']} | {cpu:.1f} |")
    print("\n## Per stage, per world-step, and the H100 limits at 4096 worlds (PREDICTION)\n")
    print("| scene | stage | items/world (kind) | kflop | KB HBM | KB L2 | t_mem µs | t_comp µs | t_lat µs | bound | source |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---|---|")
    for k, c in counts.items():
        rows, _ = predict(k, c, 4096)
        for r in rows:
            print(f"| {k} | {r['stage']} | {r['items']} ({r['kind']}) | {r['flops']/1e3:.2f} | {r['bytes']/1e3:.2f} | "
                  f"{r.get('l2_bytes', 0)/1e3:.2f} | "
                  f"{r['t_mem']*1e6:.2f} | {r['t_comp']*1e6:.2f} | {r['t_lat']*1e6:.1f} | {r['bound']} | {r['source']} |")
    print("\n## Predicted world-steps/s (PREDICTION), today's design, launches without a graph\n")
    print("| scene | 4096 worlds | 16384 worlds | 4096 at 24 cycles/op | largest stage at 4096 (its bound, µs) | HBM ceiling | FP64 ceiling "
          "| solve: Cholesky share of its flops (nv) | CPU today, 1 thread |")
    print("|---|---:|---:|---:|---|---:|---:|---|---:|")
    for k, c in counts.items():
        res = {}
        for nw in (4096, 16384):
            rows, tot = predict(k, c, nw)
            res[nw] = (nw / tot, max(rows, key=lambda r: r["t"]))
        big = res[4096][1]
        cpu = sum(c["stage_us_per_step"].values())
        rows = predict(k, c, 4096)[0]
        slow = 4096 / predict(k, c, 4096, dev=dict(H100, cycles_per_dep_op=24.0))[1]
        mem = sum(r["bytes"] for r in rows) / H100["hbm_Bps"]
        comp = sum(r["flops"] for r in rows) / H100["fp64_flops"]
        sol = [r for r in rows if r["stage"] == "solve"]
        share = f"{sol[0]['chol_share']*100:.0f}% ({sol[0]['nv']})" if sol else "–"
        print(f"| {k} | {res[4096][0]:,.0f} | {res[16384][0]:,.0f} | {slow:,.0f} | {big['stage']} ({big['bound']}, "
              f"{big['t']*1e6:.0f} µs) | {1/mem:,.0f} | {1/comp:,.0f} | {share} | {1e6/cpu:,.0f} |")
    print("\n## The dense Cholesky per world (PREDICTION)\n")
    print("| n | flop | one thread per matrix, µs | warp per matrix, µs | 4096 matrices compute-bound, µs | 16384, µs "
          "| separate batched call at 4096 (≥), µs |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for r in chol_table():
        print(f"| {r['n']} | {r['flops']:,.0f} | {r['thread_us']:.2f} | {r['warp_us']:.2f} | "
              f"{r['compute_us_4096']:.3f} | {r['compute_us_16384']:.3f} | {r['batched_us_4096']:.1f} |")
    print("\n## What the replacements would give (PREDICTION, world-steps/s at 4096 / 16384)\n")
    warp = {"solve": dict(chain=12.0, threads=32)}
    print("| scene | today | warp per world for the solve (chain ÷12) | + per-element fem items | + CUDA graph |")
    print("|---|---:|---:|---:|---:|")
    for k, c in counts.items():
        cells = []
        for nw in (4096, 16384):
            t0 = predict(k, c, nw)[1]
            t1 = predict(k, c, nw, solve_scale=warp)[1]
            sc = dict(warp)
            if k in TETS:
                sc["fem elements"] = dict(chain=TETS[k], threads=TETS[k])
            t2 = predict(k, c, nw, solve_scale=sc)[1]
            t3 = predict(k, c, nw, graph=True, solve_scale=sc)[1]
            cells.append((nw / t0, nw / t1, nw / t2, nw / t3))
        print(f"| {k} | " + " | ".join(f"{cells[0][i]:,.0f} / {cells[1][i]:,.0f}" for i in range(4)) + " |")
    calibration(counts)


MEASURED = os.path.join(HERE, "results", "gpu_h200", "throughput.csv")
MEASURED_NAMES = {"compliant_box_on_plane": "box", "point_contact": "point", "pick": "pick",
                  "sphere_on_box": "sphere", "stack_of_five_boxes": "stack", "coin_slide_spin": "coin",
                  "soft_beam": "soft_beam", "soft_ball": "soft_ball"}


def measured_rates(path=MEASURED):
    """Warm world-steps/s per (scene key, worlds) from device_check.sh's CSV: the difference of
    the runs of S and L steps (first-step costs drop out)."""
    runs = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["backend"] == "cuda" and r["wall_s"] and r["scene"] in MEASURED_NAMES:
                runs.setdefault((MEASURED_NAMES[r["scene"]], int(r["worlds"])), []).append(
                    (int(r["steps"]), float(r["wall_s"])))
    out = {}
    for key, rs in runs.items():
        if len(rs) == 2:
            (s0, t0), (s1, t1) = sorted(rs)
            if t1 > t0:
                out[key] = key[1] * (s1 - s0) / (t1 - t0)
    return out


def fit_cycles(key, c, nw, rate):
    """The cycles per dependent op at which the model gives the measured rate (bisection: the
    predicted rate falls as the latency grows); None where even 1 cycle predicts less."""
    def pred(x):
        return nw / predict(key, c, nw, dev=dict(H100, cycles_per_dep_op=x))[1]
    lo, hi = 1.0, 4096.0
    if pred(lo) < rate:
        return None
    for _ in range(60):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if pred(mid) > rate else (lo, mid)
    return lo


# The second pass (d785769 and cb0930c, the Hessian summed per run as this model counts it): every
# scene of its first throughput CSV but the stack, whose worlds froze there (a list overflow,
# bench/RESULTS.md), and the stack from the second
MEASURED_B = [(os.path.join(HERE, "results", "gpu_h200_b", "throughput_run1.csv"), lambda k: k != "stack"),
              (os.path.join(HERE, "results", "gpu_h200_b", "throughput_run2.csv"), lambda k: k == "stack")]


def calibration_table(counts, rates):
    print("| scene | worlds | measured world-steps/s | predicted (8 cycles) | predicted ÷ measured | fitted cycles/op |")
    print("|---|---:|---:|---:|---:|---:|")
    fits = []
    for (k, nw), rate in sorted(rates.items(), key=lambda kv: (list(SCENES).index(kv[0][0]), kv[0][1])):
        if k not in counts:
            continue
        p = nw / predict(k, counts[k], nw)[1]
        x = fit_cycles(k, counts[k], nw, rate)
        if x is not None:
            fits.append((nw, x))
        print(f"| {k} | {nw} | {rate:,.0f} | {p:,.0f} | {p / rate:.1f}× | {'< 1' if x is None else f'{x:.0f}'} |")
    return fits


def calibration(counts):
    if not os.path.exists(MEASURED):
        return
    rates = measured_rates()
    print("\n## Against the first measurements (one H200, 2026-11-28: results/gpu_h200/)\n")
    print("The H200 has the H100's 132 SMs and clocks; for these latency-bound stages its extra bandwidth "
          "does not enter. 'fitted' is the cycles per dependent FP64 op at which this model gives the "
          "measured rate, all else unchanged. The counts are those of bench_gpu_counts' trajectories, not "
          "of the timed windows (S to L steps of device_check.sh).\n")
    calibration_table(counts, rates)
    rates = {}
    for path, keep in MEASURED_B:
        if os.path.exists(path):
            rates.update({key: r for key, r in measured_rates(path).items() if keep(key[0])})
    if not rates:
        return
    print("\n## Against the second measurements (one H200, 2026-11-28: results/gpu_h200_b/)\n")
    print("The same device and scripts, the code of the model's current counts (the Hessian summed per run "
          "of contacts on the same cliques); the stack from the pass after its list overflow was fixed.\n")
    fits = calibration_table(counts, rates)
    for nw in sorted({n for n, _ in fits}):
        xs = sorted(x for n, x in fits if n == nw)
        print(f"\nMedian fitted cycles per dependent op at {nw} worlds: {xs[len(xs) // 2]:.0f} "
              f"(of {len(xs)} scenes, {xs[0]:.0f} to {xs[-1]:.0f}).")


if __name__ == "__main__":
    main()
