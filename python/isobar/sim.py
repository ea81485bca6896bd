"""Sims: N worlds of one model stepped together, with their arrays exposed without copies."""
import ctypes as C

import numpy as np

from . import _native as N
from . import arrays
from .errors import InvalidArgumentError, StateError

BACKENDS = {"cpu": 0, "cuda": 1, "auto": 2}
_STATE_FIELDS = {"q": 0, "v": 1, "time": 2, "effort": 3, "target_position": 4, "target_velocity": 5,
                 "actuation": 6, "joint_force": 7, "vertex_position": 8, "vertex_velocity": 9}
PARAMS = {N.lib.iso_param_name(k).decode(): k for k in range(64) if N.lib.iso_param_name(k)
          and N.lib.iso_param_name(k).decode() not in ("", "unknown")}
"""Per-world parameter names (C's isoParam, e.g. "body_mass", "geometry_friction") and their codes."""
VIEW_NAMES = tuple(N.lib.iso_view_name(k).decode() for k in range(N.lib.iso_view_count()))
"""The arrays every sim exposes (include/isobar/view.h)."""

# Arrays whose stage runs only once they are viewed (include/isobar/view.h, tactile.h): made on
# first access, not with the others
_ON_VIEW = ("body_contact_wrench", "taxel_force", "taxel_pressure")

# World status bits (include/isobar/world_status.h)
WORLD_NONFINITE = 0x1
WORLD_NOT_SPD = 0x2
WORLD_OVERFLOW = 0x4
WORLD_NOT_CONVERGED = 0x8
WORLD_LINE_SEARCH = 0x10
WORLD_RUNAWAY = 0x20
WORLD_FROZEN = 0x80000000


def _f64(values, what):
    try:
        a = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise InvalidArgumentError(f"{what}: values must be numbers ({e})") from None
    if not np.all(np.isfinite(a)):
        raise InvalidArgumentError(f"{what}: values must be finite")
    return a


class _Handle:
    """Owns the C sim: the Sim and every array over its memory hold one, so the memory lives
    until the last of them goes, and no cycle delays it to the garbage collector."""

    def __init__(self, ptr):
        self.ptr = ptr
        # held here: at interpreter exit the module's globals may already be None when the
        # last sims are collected
        self._destroy = N.lib.iso_sim_destroy

    def __del__(self):
        if self.ptr:
            self._destroy(self.ptr)
            self.ptr = None


class Sim:
    """`worlds` independent copies of a model, stepped together on one backend.

    Arrays (properties of the same names, shape (nworld, width)): q, v, time, effort,
    target_position, target_velocity, actuation, joint_force, vertex_position,
    vertex_velocity (float64), status (uint32 ISO_WORLD_* bits), solver_iterations,
    solver_converged (int32), solver_residual (float64). On the CPU backend each is a NumPy
    array over the sim's own memory: writing `sim.effort[:] = u` is writing the input the
    next step applies, and the arrays keep their addresses across steps and resets. Arrays
    a step writes (actuation, joint_force, status, solver_*) are read-only. On the CUDA
    backend they are `DeviceArray`s for `torch.from_dlpack` and kin.

    Writes through the arrays skip the checks of `set_state` (finite values, unit
    quaternions): use `set_state` for positions you did not compute from the arrays.
    """

    def __init__(self, model, worlds=1, backend="cpu", threads=0, max_contacts=0,
                 max_candidates=0, max_iterations=None, relative_tolerance=None):
        """Create the sim. backend: "cpu", "cuda" or "auto" (CUDA when a device is usable).
        threads: CPU threads (0: OpenMP's default). The capacities and solver settings are
        those of isoSimDef (include/isobar/sim.h); 0 means automatic."""
        if backend not in BACKENDS:
            raise InvalidArgumentError(f"isobar.Sim: backend must be one of {sorted(BACKENDS)}, got {backend!r}")
        for name, val in (("worlds", worlds), ("threads", threads), ("max_contacts", max_contacts),
                          ("max_candidates", max_candidates)):
            if not isinstance(val, (int, np.integer)) or isinstance(val, bool):
                raise InvalidArgumentError(f"isobar.Sim: {name} must be an int, got {val!r}")
        self._ptr = None
        d = N.lib.iso_default_sim_def()
        d.worlds = int(worlds)
        d.backend = BACKENDS[backend]
        d.threads = int(threads)
        d.capacity.max_contacts = int(max_contacts)
        d.capacity.max_candidates = int(max_candidates)
        if max_iterations is not None:
            d.solver.max_iterations = int(max_iterations)
        if relative_tolerance is not None:
            d.solver.relative_tolerance = float(relative_tolerance)
        p = C.c_void_p()
        N.check(N.lib.iso_sim_create(model._live(), C.byref(d), C.byref(p)))
        self._handle = _Handle(p)
        self._ptr = p
        self.model = model
        self.nworld = int(worlds)
        self.dt = N.lib.iso_sim_time_step(p)
        """The time step, s."""
        self._stage_timing = False
        self._make_arrays(())

    def _make_arrays(self, wanted):
        """The arrays over the sim's memory, and weak references to the host buffers they view,
        which reserve checks. Of the arrays a stage fills only once they are viewed (_ON_VIEW),
        only those in `wanted`: viewing one switches its stage on for every later step."""
        self._arrays = {}
        self._host_memory = []
        for name in VIEW_NAMES:
            if name not in _ON_VIEW or name in wanted:
                self._add_array(name)

    def _add_array(self, name):
        view = self._c_view(name)  # for the arrays of _ON_VIEW, this switches their stage on
        if N.lib.iso_sim_backend(self._ptr) == 1:
            self._arrays[name] = arrays.DeviceArray(self, name)
        else:
            self._arrays[name] = arrays.host_array(view, self._handle, self._host_memory)

    # ---- life ------------------------------------------------------------------------------
    def close(self):
        """Release the sim: every call after this raises StateError. Its memory is freed once
        no array taken from it is referenced any more (so such an array never dangles)."""
        self._arrays = {}
        self._handle = None
        self._ptr = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _live(self):
        if not self._ptr:
            raise StateError("isobar.Sim: the sim was closed")
        return self._ptr

    def _c_view(self, name):
        v = N.View()
        N.check(N.lib.iso_sim_view(self._live(), name.encode(), C.byref(v)))
        return v

    # ---- facts -----------------------------------------------------------------------------
    @property
    def backend(self):
        """"cpu" or "cuda": where the sim runs."""
        return "cuda" if N.lib.iso_sim_backend(self._live()) == 1 else "cpu"

    @property
    def backend_reason(self):
        """Why this backend (AUTO's choice) or which device."""
        return N.lib.iso_sim_backend_reason(self._live()).decode()

    @property
    def threads(self):
        """CPU threads the sim's loops use."""
        return N.lib.iso_sim_threads(self._live())

    @property
    def step_count(self):
        """Steps taken since creation."""
        return int(N.lib.iso_sim_step_count(self._live()))

    @property
    def memory_per_world(self):
        """Backend bytes the sim holds per world."""
        b = C.c_size_t()
        N.check(N.lib.iso_sim_memory_per_world(self._live(), C.byref(b)))
        return b.value

    # ---- capacities ------------------------------------------------------------------------
    @property
    def capacity(self):
        """The per-world capacities in use, automatic ones resolved (isoCapacityDef): a dict of
        max_contacts, max_candidates, max_deformable_contacts and max_participating."""
        c = N.lib.iso_sim_capacity(self._live())
        return {name: int(getattr(c, name)) for name, _ in N.CapacityDef._fields_}

    def overflow(self, world):
        """What world `world` needed at its last contact update, for the lists that overflowed
        (ISO_WORLD_OVERFLOW): a dict of candidates (for max_candidates), faces and constraints
        (for max_contacts), each 0 where that list fit. One query per world (on the GPU, one
        wait each): read `status` first and ask only the worlds with WORLD_OVERFLOW."""
        p = self._live()
        w = int(world)
        if not 0 <= w < self.nworld:
            raise IndexError(f"isobar.Sim.overflow: world index {w} is out of range [0, {self.nworld})")
        nc, nf, ncon = C.c_int(), C.c_int(), C.c_int()
        N.check(N.lib.iso_sim_get_overflow(p, w, C.byref(nc), C.byref(nf), C.byref(ncon)))
        return {"candidates": nc.value, "faces": nf.value, "constraints": ncon.value}

    def reserve(self, max_contacts=0, max_candidates=0):
        """Grow the per-world capacities to at least these (0, or a value at or below the one in
        use, keeps it; they never shrink), between steps. Every world keeps its state, status
        and last results, and the sim steps on bit for bit as one created with the larger
        capacities. A world frozen by an overflow stays frozen: reset it to run it again.

        Growing moves the sim's memory: `sim.q` and the other arrays are new objects after it.
        On the CPU an array taken before and still referenced would view freed memory, so
        reserve refuses (StateError) while one is (a slice of one included): delete them first.
        On CUDA, tensors made from the arrays through DLPack before must not be used after."""
        p = self._live()
        wanted = [n for n in _ON_VIEW if n in self._arrays]
        self._arrays = {}
        if any(r() is not None for r in self._host_memory):
            self._make_arrays(wanted)  # nothing moved: the arrays held stay valid
            raise StateError("isobar.Sim.reserve: arrays taken from this sim (sim.q, sim.v, ...) are still "
                             "referenced, and growing moves the memory they view: delete them, reserve, then "
                             "take them again")
        try:
            N.check(N.lib.iso_sim_reserve(p, int(max_contacts), int(max_candidates)))
        finally:
            self._make_arrays(wanted)

    def grow_to_fit(self, headroom=1.25):
        """Reserve what the worlds frozen by an overflow needed (see `overflow`) times
        `headroom` (>= 1), and return the bool mask (nworld,) of those worlds, to reset:
        `sim.reset(sim.grow_to_fit())`. A list records what it needed at the step it overflowed,
        and contact grows as bodies settle, so a world may need more once it runs again: the
        headroom covers that mostly; check `status` after the next rollout too."""
        if not headroom >= 1:
            raise InvalidArgumentError(f"isobar.Sim.grow_to_fit: headroom must be >= 1, got {headroom}")
        st = self._status_host()
        hit = (st & WORLD_OVERFLOW) != 0
        contacts = candidates = 0
        for w in np.flatnonzero(hit):
            o = self.overflow(int(w))
            contacts = max(contacts, o["faces"], o["constraints"])
            candidates = max(candidates, o["candidates"])
        if contacts or candidates:
            self.reserve(int(np.ceil(contacts * headroom)), int(np.ceil(candidates * headroom)))
        return hit & ((st & WORLD_FROZEN) != 0)

    def _status_host(self):
        """Every world's ISO_WORLD_* bits as a host uint32 array (nworld,), on any backend."""
        return self._copy("status").reshape(self.nworld)

    # ---- stepping --------------------------------------------------------------------------
    def step(self, n=1):
        """Advance every world that is not frozen by n time steps."""
        p = self._live()
        for _ in range(int(n)):
            N.check(N.lib.iso_sim_step(p))

    # ---- arrays ----------------------------------------------------------------------------
    def array(self, name):
        """The sim's array `name` (one of VIEW_NAMES), without a copy."""
        self._live()
        if name in _ON_VIEW and name not in self._arrays:
            self._add_array(name)
        try:
            return self._arrays[name]
        except KeyError:
            raise InvalidArgumentError(f"isobar.Sim.array: no array {name!r} (arrays: {', '.join(VIEW_NAMES)})") from None

    def _copy(self, name, col0=0, ncol=None, inner=None):
        """A host copy of array `name` (or of columns of it, as arrays._layout), on any
        backend (iso_sim_copy_view)."""
        v = self._c_view(name)
        full = np.zeros((self.nworld, int(v.shape[1])), arrays._DTYPES[v.dtype])
        if full.size:
            N.check(N.lib.iso_sim_copy_view(self._live(), name.encode(), full.ctypes.data_as(C.c_void_p)))
        dims, _, first = arrays._layout(v, col0, ncol, inner)
        n = dims[1] * (dims[2] if len(dims) == 3 else 1)
        return full[:, first:first + n].reshape(dims)

    def _write(self, name, values):
        """Assign a whole array: (nworld, width), one row (width,) for every world, or (nworld,)
        when the width is 1. In place on the CPU; through set_state on CUDA."""
        arr = self.array(name)
        width = int(arr.shape[1])
        a = _f64(values, f"isobar.Sim.{name}")
        if width == 1 and a.shape == (self.nworld,):
            a = a[:, None]
        if a.shape not in ((self.nworld, width), (width,)):
            raise InvalidArgumentError(f"isobar.Sim.{name}: expected shape ({self.nworld}, {width}) or ({width},), got {a.shape}")
        if isinstance(arr, np.ndarray):
            arr[...] = a
        else:
            self.set_state(name, a)

    q = property(lambda s: s.array("q"), lambda s, x: s.set_state("q", x),
                 doc="Generalized positions (nworld, nq); assigning one goes through set_state's checks.")
    v = property(lambda s: s.array("v"), lambda s, x: s._write("v", x), doc="Generalized velocities (nworld, nv).")
    time = property(lambda s: s.array("time"), doc="Simulated time per world (nworld, 1), s.")
    effort = property(lambda s: s.array("effort"), lambda s, x: s._write("effort", x),
                      doc="Actuator efforts (nworld, nactuator), N m or N: the next step's input.")
    target_position = property(lambda s: s.array("target_position"), lambda s, x: s._write("target_position", x),
                               doc="PD position targets (nworld, nactuator).")
    target_velocity = property(lambda s: s.array("target_velocity"), lambda s, x: s._write("target_velocity", x),
                               doc="PD velocity targets (nworld, nactuator).")
    actuation = property(lambda s: s.array("actuation"), doc="Effort each actuator applied at the last step (read-only).")
    joint_force = property(lambda s: s.array("joint_force"), doc="Joint constraints' generalized force (nworld, nv or 0).")
    vertex_position = property(lambda s: s.array("vertex_position"), doc="Deformable vertex positions (nworld, 3·nvertex), m.")
    vertex_velocity = property(lambda s: s.array("vertex_velocity"), doc="Deformable vertex velocities (nworld, 3·nvertex).")
    status = property(lambda s: s.array("status"), doc="ISO_WORLD_* bits (nworld, 1), uint32 (read-only).")
    solver_iterations = property(lambda s: s.array("solver_iterations"), doc="SAP iterations of the last step (read-only).")
    solver_converged = property(lambda s: s.array("solver_converged"), doc="1 where the last solve converged (read-only).")
    solver_residual = property(lambda s: s.array("solver_residual"), doc="Last solve's residual over its tolerance.")

    @property
    def body_contact_wrench(self):
        """Every body's net contact wrench at the last step, (nworld, nbody, 6): torque about
        the body origin then force, world frame (read-only view, computed on the backend). The
        backend computes it from the first access on (a sim that never reads it skips the
        work): take it once before stepping."""
        a = self.array("body_contact_wrench")
        if isinstance(a, np.ndarray):
            return a.reshape(self.nworld, -1, 6)
        return arrays.DeviceArray(self, "body_contact_wrench", inner=6)

    def _pad(self, pad):
        p = int(pad)
        off, cnt = C.c_int(), C.c_int()
        N.check(N.lib.iso_sim_taxel_offset(self._live(), p, C.byref(off), C.byref(cnt)))
        return off.value, cnt.value

    def taxel_forces(self, pad):
        """Pad `pad`'s taxel forces at the last step, (nworld, ntaxel, 3): pad frame (x, y shear,
        z normal), the force on the pad's geometry, N (a view; taxel k = row·cols + column). The
        first call samples the last step and makes every later step sample the pads (a sim
        whose taxels are never read does not pay for them)."""
        off, cnt = self._pad(pad)
        a = self.array("taxel_force")
        if not isinstance(a, np.ndarray):
            return arrays.DeviceArray(self, "taxel_force", col0=3 * off, ncol=3 * cnt, inner=3)
        return a[:, 3 * off:3 * (off + cnt)].reshape(self.nworld, cnt, 3)

    def taxel_pressures(self, pad):
        """Pad `pad`'s taxel pressures at the last step, (nworld, ntaxel), Pa (a view)."""
        off, cnt = self._pad(pad)
        a = self.array("taxel_pressure")
        if not isinstance(a, np.ndarray):
            return arrays.DeviceArray(self, "taxel_pressure", col0=off, ncol=cnt)
        return a[:, off:off + cnt]

    # ---- checked state, reset --------------------------------------------------------------
    def _select(self, worlds, what):
        """(isoWorlds, keep-alive array, number selected) for None, a bool mask or indices."""
        if worlds is None:
            return N.worlds_all(), None, self.nworld
        w = np.asarray(worlds)
        if w.dtype == np.bool_:
            if w.shape != (self.nworld,):
                raise InvalidArgumentError(f"{what}: a world mask must have shape ({self.nworld},), got {w.shape}")
            m = np.ascontiguousarray(w, dtype=np.uint8)
            return N.worlds_mask(m), m, int(m.sum())
        if w.dtype.kind not in "iu":
            raise InvalidArgumentError(f"{what}: worlds must be a bool mask or integer indices, got dtype {w.dtype}")
        idx = np.ascontiguousarray(w.reshape(-1), dtype=np.int64)
        if idx.size and (idx.min() < 0 or idx.max() >= self.nworld):
            bad = int(idx[(idx < 0) | (idx >= self.nworld)][0])
            raise IndexError(f"{what}: world index {bad} is out of range [0, {self.nworld})")
        i32 = idx.astype(np.int32)
        return N.worlds_list(i32), i32, int(i32.size)

    def set_state(self, field, values, worlds=None):
        """Overwrite a state field of the selected worlds, checked (finite, unit quaternions
        normalised, time >= 0) before anything changes. values: (nselected, width) or (width,)
        for all of them. worlds: None (all), a bool mask (nworld,) or indices."""
        if field not in _STATE_FIELDS:
            raise InvalidArgumentError(f"isobar.Sim.set_state: no state field {field!r} (fields: {', '.join(_STATE_FIELDS)})")
        p = self._live()
        f = _STATE_FIELDS[field]
        width = N.lib.iso_sim_state_width(p, f)
        sel, keep, n = self._select(worlds, "isobar.Sim.set_state")
        a = _f64(values, f"isobar.Sim.set_state({field!r})")
        if a.shape == (width,):
            a = np.broadcast_to(a, (n, width))
        if a.shape != (n, width):
            raise InvalidArgumentError(f"isobar.Sim.set_state({field!r}): expected shape ({n}, {width}) or ({width},), got {a.shape}")
        if n == 0 or width == 0:
            return
        a = np.ascontiguousarray(a, dtype=np.float64)
        N.check(N.lib.iso_sim_set_state(p, f, sel, a.ctypes.data_as(N._DP)))
        del keep

    def get_state(self, field, worlds=None):
        """A copy of a state field of the selected worlds, (nselected, width)."""
        if field not in _STATE_FIELDS:
            raise InvalidArgumentError(f"isobar.Sim.get_state: no state field {field!r}")
        p = self._live()
        f = _STATE_FIELDS[field]
        sel, keep, n = self._select(worlds, "isobar.Sim.get_state")
        out = np.zeros((n, N.lib.iso_sim_state_width(p, f)))
        if out.size:
            N.check(N.lib.iso_sim_get_state(p, f, sel, out.ctypes.data_as(N._DP)))
        del keep
        return out

    def contact_counts(self, worlds=None):
        """The contacts of the last step in the selected worlds (None: all; a bool mask or
        indices), as three int32 arrays (nselected,): hydroelastic faces, point-contact pairs in
        contact, and the contact constraints the solve used. One read for any number of worlds
        (on the GPU, one copy per array). StateError after a set_state or reset, until the next
        step, as the surfaces then describe positions the worlds no longer have."""
        p = self._live()
        sel, keep, n = self._select(worlds, "isobar.Sim.contact_counts")
        out = tuple(np.zeros(n, dtype=np.int32) for _ in range(3))
        if n:
            N.check(N.lib.iso_sim_get_contact_counts(p, sel, *(a.ctypes.data_as(N._IP) for a in out)))
        del keep
        return out

    def reset(self, mask=None, q=None, v=None):
        """Return the worlds of `mask` (a bool array (nworld,), or None for all) to the model's
        initial state, time 0, inputs zero, status bits cleared, in one call on the backend;
        then, when given, set their q and v ((nselected, nq) / (nselected, nv), or one row for
        all). Worlds outside the mask are not touched. Per-world parameters keep their values."""
        if mask is not None:
            m = np.asarray(mask)
            if m.dtype != np.bool_:
                raise InvalidArgumentError(f"isobar.Sim.reset: mask must be a bool array, got dtype {m.dtype}")
        sel, keep, n = self._select(mask, "isobar.Sim.reset")
        # check the states first, so a rejected call changes nothing
        p = self._live()
        rows = {}
        for name, val in (("q", q), ("v", v)):
            if val is None:
                continue
            width = N.lib.iso_sim_state_width(p, _STATE_FIELDS[name])
            a = _f64(val, f"isobar.Sim.reset({name})")
            if a.shape == (width,):
                a = np.broadcast_to(a, (n, width))
            if a.shape != (n, width):
                raise InvalidArgumentError(f"isobar.Sim.reset: {name} must have shape ({n}, {width}) or ({width},), got {a.shape}")
            rows[name] = a
        if n == 0:
            return
        N.check(N.lib.iso_sim_reset(p, sel))
        for name, a in rows.items():
            self.set_state(name, a, mask)
        del keep

    # ---- parameters ------------------------------------------------------------------------
    def _param(self, name):
        if name not in PARAMS:
            raise InvalidArgumentError(f"isobar.Sim: no parameter {name!r} (parameters: {', '.join(PARAMS)})")
        return PARAMS[name]

    def param_width(self, name):
        """Values per item of parameter `name`."""
        return N.lib.iso_param_width(self._param(name))

    def set_param(self, name, values, item=0, worlds=None):
        """Set parameter `name` (e.g. "body_mass", "geometry_friction", "gravity",
        "actuator_gains", "deformable_material"; see PARAMS) of item `item` (a body, geometry,
        DoF, actuator or deformable index) for the selected worlds in one call. values:
        (nselected, width), (nselected,) when the width is 1, or (width,) for all. Every value
        is checked before any changes (a bad one names its world)."""
        code = self._param(name)
        width = N.lib.iso_param_width(code)
        sel, keep, n = self._select(worlds, f"isobar.Sim.set_param({name!r})")
        a = _f64(values, f"isobar.Sim.set_param({name!r})")
        if a.shape == (width,):
            a = np.broadcast_to(a, (n, width))
        elif width == 1 and a.shape == (n,):
            a = a.reshape(n, 1)
        elif a.ndim == 0 and width == 1:
            a = np.full((n, 1), float(a))
        if a.shape != (n, width):
            raise InvalidArgumentError(f"isobar.Sim.set_param({name!r}): expected shape ({n}, {width}) or ({width},), got {a.shape}")
        if not isinstance(item, (int, np.integer)) or isinstance(item, bool):
            raise InvalidArgumentError(f"isobar.Sim.set_param({name!r}): item must be an int, got {item!r}")
        if n == 0:
            return
        a = np.ascontiguousarray(a, dtype=np.float64)
        N.check(N.lib.iso_sim_set_param(self._live(), code, int(item), sel, a.ctypes.data_as(N._DP)))
        del keep

    def get_param(self, name, item=0, worlds=None):
        """Parameter `name` of item `item` for the selected worlds, (nselected, width)."""
        code = self._param(name)
        sel, keep, n = self._select(worlds, f"isobar.Sim.get_param({name!r})")
        out = np.zeros((n, N.lib.iso_param_width(code)))
        if n:
            N.check(N.lib.iso_sim_get_param(self._live(), code, int(item), sel, out.ctypes.data_as(N._DP)))
        del keep
        return out

    # ---- bodies ----------------------------------------------------------------------------
    def body_poses(self):
        """Every body's pose (nworld, nbody, 7): px py pz qw qx qy qz (a copy)."""
        p = self._live()
        nb = N.lib.iso_sim_body_count(p)
        out = np.zeros((self.nworld, nb, 7))
        if out.size:
            N.check(N.lib.iso_sim_get_body_poses(p, N.worlds_all(), out.ctypes.data_as(N._DP)))
        return out

    def body_velocities(self):
        """Every body's spatial velocity (nworld, nbody, 6): ω then v, world frame (a copy)."""
        p = self._live()
        nb = N.lib.iso_sim_body_count(p)
        out = np.zeros((self.nworld, nb, 6))
        if out.size:
            N.check(N.lib.iso_sim_get_body_velocities(p, N.worlds_all(), out.ctypes.data_as(N._DP)))
        return out

    @property
    def stage_timing(self):
        """Whether steps time their stages (`stage_times`); off at creation, as a clock read
        around each stage costs a tenth of a small one-world step. Set True to measure."""
        return self._stage_timing

    @stage_timing.setter
    def stage_timing(self, on):
        N.check(N.lib.iso_sim_set_stage_timing(self._live(), 1 if on else 0))
        self._stage_timing = bool(on)

    def stage_times(self):
        """Wall seconds per stage of the timed steps (CPU backend), as a dict. Raises StateError
        when `stage_timing` was never turned on."""
        n = N.lib.iso_sim_stage_count()
        out = np.zeros(n)
        cnt = C.c_int()
        N.check(N.lib.iso_sim_get_stage_times(self._live(), out.ctypes.data_as(N._DP), n, C.byref(cnt)))
        return {N.lib.iso_sim_stage_name(k).decode(): float(out[k]) for k in range(n)}

    def __repr__(self):
        if not self._ptr:
            return "Sim(closed)"
        return f"Sim(worlds={self.nworld}, backend={self.backend!r}, dt={self.dt})"
