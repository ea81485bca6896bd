"""Drake side of the comparison: load a scene file with Drake's own parser, step it with the
discrete plant (SAP, the same contact approximation as isobar) and return what isobar's
`--record` CSV and iso_probe hold, body by body, so the two can be compared step for step.

Drake's state of a free body is the quaternion floating joint, q = [qw qx qy qz px py pz] and
v = [wx wy wz vx vy vz] (world frame, body origin), the layout isobar copies.
"""
import contextlib
import os
import time

import numpy as np
from pydrake.multibody.math import SpatialVelocity
from pydrake.multibody.parsing import Parser
from pydrake.multibody.plant import AddMultibodyPlant, MultibodyPlantConfig
from pydrake.systems.analysis import Simulator
from pydrake.systems.framework import DiagramBuilder

# Columns of one body's row, as isobar's --record CSV (after step, time, world, body).
STATE_COLS = ["px", "py", "pz", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"]


@contextlib.contextmanager
def _cwd(path):
    # Drake (libsdformat's find-file callback) resolves a relative <include><uri> against the
    # process's working directory, not the including file; isobar resolves it against the file.
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


class DrakeScene:
    """One scene in a Drake discrete MultibodyPlant, ready to step."""

    def __init__(self, path, dt, approximation="lagged", initial_velocities=None):
        builder = DiagramBuilder()
        config = MultibodyPlantConfig(time_step=dt, discrete_contact_approximation=approximation,
                                      contact_model="hydroelastic_with_fallback")
        self.plant, self.scene_graph = AddMultibodyPlant(config, builder)
        path = os.path.abspath(path)
        with _cwd(os.path.dirname(path)):
            Parser(self.plant).AddModels(os.path.basename(path))
        self.plant.Finalize()
        self.diagram = builder.Build()
        self.dt = dt
        self.simulator = Simulator(self.diagram)
        self.context = self.simulator.get_mutable_context()
        self.plant_context = self.plant.GetMyContextFromRoot(self.context)
        p = self.plant
        self.bodies = [p.get_body(i) for i in sorted(p.GetFloatingBaseBodies())]
        self.names = [p.GetModelInstanceName(b.model_instance()) + "::" + b.name() for b in self.bodies]
        for name, vel in (initial_velocities or {}).items():
            b = self.body(name)
            v = np.asarray(vel, float)
            p.SetFreeBodySpatialVelocity(self.plant_context, b, SpatialVelocity(w=v[3:6], v=v[0:3]))
        self.simulator.Initialize()

    def body(self, name):
        """A body by isobar's name: `model::link`, or the plain link name when unique."""
        hits = [b for b, n in zip(self.bodies, self.names) if n == name or n.endswith("::" + name)]
        if len(hits) != 1:
            raise KeyError(f"{name}: {len(hits)} bodies match among {self.names}")
        return hits[0]

    def state(self):
        """(nbody, 13) array of px py pz qw qx qy qz vx vy vz wx wy wz, as isobar's CSV."""
        out = np.empty((len(self.bodies), 13))
        for i, b in enumerate(self.bodies):
            X = self.plant.EvalBodyPoseInWorld(self.plant_context, b)
            V = self.plant.EvalBodySpatialVelocityInWorld(self.plant_context, b)
            out[i, 0:3] = X.translation()
            out[i, 3:7] = X.rotation().ToQuaternion().wxyz()
            out[i, 7:10] = V.translational()
            out[i, 10:13] = V.rotational()
        return out

    def contact_wrenches(self):
        """(nbody, 6) net contact wrench of the last step on each body, torque about the body
        origin then force, world frame (the generalized contact force of its floating joint)."""
        p = self.plant
        tau = np.zeros(p.num_velocities())
        for m in {b.model_instance() for b in self.bodies}:
            p.SetVelocitiesInArray(m, p.get_generalized_contact_forces_output_port(m).Eval(self.plant_context), tau)
        out = np.zeros((len(self.bodies), 6))
        for i, b in enumerate(self.bodies):
            k = b.floating_velocities_start_in_v()
            out[i] = tau[k:k + 6]
        return out

    def contact_summary(self):
        """Hydroelastic surfaces and point pairs of the last step: counts, faces, area, forces."""
        cr = self.plant.get_contact_results_output_port().Eval(self.plant_context)
        faces, area = 0, 0.0
        for i in range(cr.num_hydroelastic_contacts()):
            s = cr.hydroelastic_contact_info(i).contact_surface()
            # faces of area <= 1e-14 m² only: isobar's surfaces drop those slivers (their count is
            # round-off's choice where mesh faces coincide), which SAP skips in both
            faces += sum(1 for f in range(s.num_faces()) if s.area(f) > 1e-14)
            area += s.total_area()
        return {"surfaces": cr.num_hydroelastic_contacts(), "faces": faces, "area": area,
                "point_pairs": cr.num_point_pair_contacts()}

    def trajectory(self, steps, every=1):
        """States at steps 0, every, 2·every, ..., steps: (array (nrec, nbody, 13), wrenches
        (nrec, nbody, 6), step numbers)."""
        recs, wr, idx = [self.state()], [np.zeros((len(self.bodies), 6))], [0]
        for k in range(1, steps + 1):
            # Advancing to k·dt leaves the state after exactly k discrete updates (the update
            # scheduled at k·dt happens at the start of the next advance).
            self.simulator.AdvanceTo(k * self.dt)
            if k % every == 0 or k == steps:
                recs.append(self.state())
                wr.append(self.contact_wrenches())
                idx.append(k)
        return np.array(recs), np.array(wr), np.array(idx)


def time_steps(path, dt, steps, approximation="lagged", initial_velocities=None):
    """Wall seconds for `steps` steps in one AdvanceTo call (the diagram built and initialised
    beforehand, outside the timing)."""
    s = DrakeScene(path, dt, approximation, initial_velocities)
    t0 = time.perf_counter()
    s.simulator.AdvanceTo(steps * dt)
    return time.perf_counter() - t0


def inertias(scene):
    """What Drake read for each free body: mass, centre of mass and inertia about the COM."""
    out = {}
    for b, name in zip(scene.bodies, scene.names):
        m = b.default_mass()
        com = np.array(b.default_com())
        I_o = b.default_rotational_inertia()  # about the body origin
        I = I_o.ShiftToCenterOfMass(m, com) if hasattr(I_o, "ShiftToCenterOfMass") else I_o
        M = I.CopyToFullMatrix3()
        out[name] = {"mass": m, "com": com.tolist(),
                     "inertia": [float(M[i, j]) for i, j in ((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2))]}
    return out


def contact_properties(scene):
    """What Drake read for each geometry: compliance, modulus, dissipation, friction, ..."""
    s = scene
    insp = s.scene_graph.model_inspector()
    out = {}
    for gid in insp.GetAllGeometryIds():
        pp = insp.GetProximityProperties(gid)
        if pp is None:
            continue
        d = {}
        for group, name, key in [("hydroelastic", "compliance_type", "compliance"),
                                 ("hydroelastic", "hydroelastic_modulus", "E"),
                                 ("hydroelastic", "resolution_hint", "hint"),
                                 ("material", "hunt_crossley_dissipation", "d"),
                                 ("material", "relaxation_time", "tau"),
                                 ("material", "point_contact_stiffness", "k"),
                                 ("material", "coulomb_friction", "mu")]:
            if not pp.HasProperty(group, name):
                continue
            if name == "compliance_type":
                # its value type (HydroelasticType) has no Python binding; the contact surfaces
                # show which side is compliant
                d[key] = "declared"
                continue
            v = pp.GetProperty(group, name)
            if name == "coulomb_friction":
                v = [v.static_friction(), v.dynamic_friction()]
            d[key] = v
        out[insp.GetName(gid)] = d
    return out
