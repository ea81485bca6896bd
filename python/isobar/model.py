"""Compiled models: loaded from SDFormat or URDF files (the C library's iso_scene_load)."""
import ctypes as C
import os

from . import _native as N

ITEM_BODY, ITEM_GEOMETRY, ITEM_JOINT, ITEM_ACTUATOR, ITEM_DEFORMABLE = range(5)


class Model:
    """A compiled model: bodies, joints, actuators, geometries and deformable bodies.

    Create one with `Model.load(path)`. A Sim copies what it needs, so a model may be closed
    (or garbage-collected) while sims made from it run on.
    """

    def __init__(self, ptr, report_lines=()):
        self._ptr = ptr
        self._destroy = N.lib.iso_model_destroy  # N may be None when collected at interpreter exit
        self.report = list(report_lines)
        """Lines of the load report: elements of the file isobar does not use."""

    @classmethod
    def load(cls, path, time_step=None, strict=False, package_path=None, compile=True):
        """Load an SDFormat (.sdf) or URDF (.urdf) scene.

        time_step: the model's time step in seconds (default: the file's, else 1 ms).
        strict: refuse any element isobar would ignore (default False: they are listed in
            `report`). package_path: where package:// uris look, as the C API's
            isoLoadOptions.package_path. compile=False returns the model before it is
            compiled, so that tactile pads can be added (add_tactile_pad); call compile() then.
            Raises FileError, ParseError, UnsupportedError or InvalidArgumentError with the
            file, line and element named.
        """
        path = os.fspath(path)
        if not isinstance(path, str):
            raise TypeError("isobar.Model.load: path must be a str or os.PathLike")
        opt = N.lib.iso_default_load_options()
        opt.strict = 1 if strict else 0
        if time_step is not None:
            ts = float(time_step)
            if not ts > 0 or ts != ts or ts == float("inf"):
                raise N.errors.InvalidArgumentError(f"isobar.Model.load: time_step must be finite and > 0, got {time_step!r}")
            opt.time_step = ts
        pp = package_path.encode() if package_path else None
        opt.package_path = pp
        opt.defer_compile = 0 if compile else 1
        m = C.c_void_p()
        rep = C.c_void_p()
        N.check(N.lib.iso_scene_load(path.encode(), C.byref(opt), C.byref(m), C.byref(rep)))
        lines = [N.lib.iso_load_report_line(rep, i).decode()
                 for i in range(N.lib.iso_load_report_count(rep))]
        N.lib.iso_load_report_free(rep)
        return cls(m, lines)

    def compile(self):
        """Compile a model loaded with compile=False (meshes, pressure fields, the pads'
        layout); a Sim needs a compiled model."""
        N.check(N.lib.iso_model_compile(self._live()))

    @property
    def compiled(self):
        """True once the model is compiled."""
        return bool(N.lib.iso_model_is_compiled(self._live()))

    def add_tactile_pad(self, geometry, rows, cols, spacing, position=(0.0, 0.0, 0.0),
                        quaternion=(1.0, 0.0, 0.0, 0.0)):
        """Declare a rows × cols taxel grid on a geometry (a name or an index), before compile.

        The pad frame P sits at `position` with orientation `quaternion` (w, x, y, z) in the
        geometry's body frame (the world frame for an anchored geometry); taxel (i, j) is at
        x = (j − (cols−1)/2)·spacing, y = (i − (rows−1)/2)·spacing in P, and P's +z points out of
        the geometry. After each step the sim's `taxel_forces(pad)` and
        `taxel_pressures(pad)` hold what the geometry's contacts pressed on each taxel
        (include/isobar/tactile.h: faces spread their solved force over their polygon; a point
        contact's whole force goes to the nearest taxel). Returns the pad's index."""
        d = N.lib.iso_default_tactile_pad_def()
        d.geometry = self.geometry(geometry) if isinstance(geometry, str) else int(geometry)
        d.rows, d.cols, d.spacing = int(rows), int(cols), float(spacing)
        pos = [float(x) for x in position]
        quat = [float(x) for x in quaternion]
        if len(pos) != 3 or len(quat) != 4:
            raise N.errors.InvalidArgumentError("isobar.Model.add_tactile_pad: position needs 3 values and quaternion 4")
        d.position[:] = pos
        d.quaternion[:] = quat
        i = C.c_int(-1)
        N.check(N.lib.iso_model_add_tactile_pad(self._live(), C.byref(d), C.byref(i)))
        return i.value

    @property
    def tactile_pad_count(self):
        """Number of tactile pads."""
        return N.lib.iso_model_tactile_pad_count(self._live())

    def close(self):
        """Free the model now (also done when it is garbage-collected)."""
        if getattr(self, "_ptr", None):
            self._destroy(self._ptr)
            self._ptr = None

    def __del__(self):
        self.close()

    def _live(self):
        if not self._ptr:
            raise N.errors.StateError("isobar.Model: the model was closed")
        return self._ptr

    def _names(self, kind, count):
        p = self._live()
        return [N.lib.iso_model_item_name(p, kind, i).decode() for i in range(count)]

    @property
    def body_names(self):
        """Bodies' names, in index order (loaded scenes name them `model::link`)."""
        return self._names(ITEM_BODY, N.lib.iso_model_body_count(self._live()))

    @property
    def geometry_names(self):
        """Geometries' names, in index order."""
        return self._names(ITEM_GEOMETRY, N.lib.iso_model_geometry_count(self._live()))

    @property
    def joint_names(self):
        """Joints' names, in index order."""
        return self._names(ITEM_JOINT, N.lib.iso_model_joint_count(self._live()))

    @property
    def actuator_names(self):
        """Actuators' names, in index order (the columns of a sim's effort and target arrays)."""
        return self._names(ITEM_ACTUATOR, N.lib.iso_model_actuator_count(self._live()))

    @property
    def deformable_names(self):
        """Deformable bodies' names, in index order."""
        return self._names(ITEM_DEFORMABLE, N.lib.iso_model_deformable_count(self._live()))

    @property
    def nq(self):
        """Generalized positions per world."""
        return N.lib.iso_model_nq(self._live())

    @property
    def nv(self):
        """Generalized velocities per world."""
        return N.lib.iso_model_nv(self._live())

    def body(self, name):
        """Index of a body by its full name or an unambiguous tail (`link`); NotFoundError lists them."""
        i = C.c_int(-1)
        N.check(N.lib.iso_scene_find_body(self._live(), str(name).encode(), C.byref(i)))
        return i.value

    def joint(self, name):
        """Index of a joint by its full name or an unambiguous tail."""
        i = C.c_int(-1)
        N.check(N.lib.iso_scene_find_joint(self._live(), str(name).encode(), C.byref(i)))
        return i.value

    def actuator(self, name):
        """Index of an actuator by name (its joint's full name when the file gave none)."""
        names = self.actuator_names
        if name in names:
            return names.index(name)
        tails = [i for i, n in enumerate(names) if n.endswith("::" + str(name))]
        if len(tails) == 1:
            return tails[0]
        raise N.errors.NotFoundError(f"isobar.Model.actuator: no single actuator named {name!r} (actuators: {', '.join(names) or 'none'})")

    def geometry(self, name):
        """Index of a geometry by name."""
        i = C.c_int(-1)
        N.check(N.lib.iso_model_find_geometry(self._live(), str(name).encode(), C.byref(i)))
        return i.value

    def joint_slices(self, joint):
        """(q slice, v slice): where joint `joint` (a name or an index) sits in a world's q and v."""
        j = self.joint(joint) if isinstance(joint, str) else int(joint)
        sq, sv = N.Slice(), N.Slice()
        N.check(N.lib.iso_model_joint_slice(self._live(), j, C.byref(sq), C.byref(sv)))
        return slice(sq.start, sq.start + sq.count), slice(sv.start, sv.start + sv.count)

    def body_slices(self, body):
        """(q slice, v slice) of a free body's 7 positions and 6 velocities."""
        b = self.body(body) if isinstance(body, str) else int(body)
        sq, sv = N.Slice(), N.Slice()
        N.check(N.lib.iso_model_body_slice(self._live(), b, C.byref(sq), C.byref(sv)))
        return slice(sq.start, sq.start + sq.count), slice(sv.start, sv.start + sv.count)

    def actuator_info(self, actuator):
        """A dict of an actuator's joint index, effort limit, kp and kd, as the model holds them."""
        a = self.actuator(actuator) if isinstance(actuator, str) else int(actuator)
        d = N.ActuatorDef()
        N.check(N.lib.iso_model_get_actuator(self._live(), a, C.byref(d)))
        return {"joint": d.joint, "effort_limit": d.effort_limit, "kp": d.kp, "kd": d.kd}

    def deformable_vertex_count(self, body):
        """Vertices of deformable body `body` (a name or an index)."""
        if isinstance(body, str):
            i = C.c_int(-1)
            N.check(N.lib.iso_model_find_deformable(self._live(), body.encode(), C.byref(i)))
            body = i.value
        nv, nt, nf = C.c_int(), C.c_int(), C.c_int()
        N.check(N.lib.iso_model_deformable_size(self._live(), int(body), C.byref(nv), C.byref(nt), C.byref(nf)))
        return nv.value

    def __repr__(self):
        if not self._ptr:
            return "Model(closed)"
        return (f"Model(bodies={len(self.body_names)}, joints={len(self.joint_names)}, "
                f"actuators={len(self.actuator_names)}, nq={self.nq}, nv={self.nv})")
