"""ctypes declarations of the C library (include/isobar/*.h) and its error handling.

Everything here is private: the public classes are in model.py and sim.py. Each C function is
declared with its exact argument and result types, so a wrong Python value raises
ctypes.ArgumentError before anything reaches C.
"""
import ctypes as C
import os

from . import errors

_HERE = os.path.dirname(os.path.abspath(__file__))


def _load():
    """Open libisobar.so: $ISOBAR_LIBRARY when set, else the copy packaged in isobar/_lib/."""
    path = os.environ.get("ISOBAR_LIBRARY") or os.path.join(_HERE, "_lib", "libisobar.so")
    if not os.path.exists(path):
        raise ImportError(
            f"isobar: the C library is not at {path}; install the package with "
            "`pip install ./python` from the repository (it builds the library with CMake), "
            "or point ISOBAR_LIBRARY at a built libisobar.so")
    return C.CDLL(path)


lib = _load()


class LoadOptions(C.Structure):
    """isoLoadOptions (include/isobar/scene.h)."""
    _fields_ = [("strict", C.c_int), ("time_step", C.c_double), ("package_path", C.c_char_p),
                ("defer_compile", C.c_int)]


class TactilePadDef(C.Structure):
    """isoTactilePadDef (include/isobar/tactile.h)."""
    _fields_ = [("geometry", C.c_int), ("rows", C.c_int), ("cols", C.c_int),
                ("spacing", C.c_double), ("position", C.c_double * 3),
                ("quaternion", C.c_double * 4)]


class CapacityDef(C.Structure):
    """isoCapacityDef (include/isobar/sim.h)."""
    _fields_ = [("max_contacts", C.c_int), ("max_candidates", C.c_int),
                ("max_deformable_contacts", C.c_int), ("max_participating", C.c_int)]


class ContactDef(C.Structure):
    """isoContactDef."""
    _fields_ = [("surface_representation", C.c_int), ("approximation", C.c_int),
                ("point_model", C.c_int), ("characteristic_radius", C.c_double),
                ("legacy_youngs_modulus", C.c_double), ("legacy_dissipation", C.c_double),
                ("legacy_static_friction", C.c_double), ("legacy_dynamic_friction", C.c_double)]


class SolverDef(C.Structure):
    """isoSolverDef."""
    _fields_ = [("max_iterations", C.c_int), ("relative_tolerance", C.c_double),
                ("on_failure", C.c_int)]


class SimDef(C.Structure):
    """isoSimDef."""
    _fields_ = [("worlds", C.c_int), ("backend", C.c_int), ("threads", C.c_int),
                ("cuda_stream", C.c_void_p), ("capacity", CapacityDef),
                ("contact", ContactDef), ("solver", SolverDef)]


class Worlds(C.Structure):
    """isoWorlds: a selection of worlds."""
    _fields_ = [("kind", C.c_int), ("world", C.c_int), ("list", C.POINTER(C.c_int)),
                ("count", C.c_int), ("mask", C.POINTER(C.c_ubyte))]


class View(C.Structure):
    """isoView (include/isobar/view.h)."""
    _fields_ = [("data", C.c_void_p), ("dtype", C.c_int), ("device", C.c_int),
                ("device_id", C.c_int), ("writable", C.c_int),
                ("shape", C.c_int64 * 2), ("strides", C.c_int64 * 2)]


class Slice(C.Structure):
    """isoSlice: where a joint's coordinates sit in q or v."""
    _fields_ = [("start", C.c_int), ("count", C.c_int)]


class ActuatorDef(C.Structure):
    """isoActuatorDef (include/isobar/joint.h)."""
    _fields_ = [("name", C.c_char_p), ("joint", C.c_int), ("effort_limit", C.c_double),
                ("kp", C.c_double), ("kd", C.c_double), ("rotor_inertia", C.c_double),
                ("gear_ratio", C.c_double)]


class SolverStats(C.Structure):
    """isoSolverStats (include/isobar/contact.h)."""
    _fields_ = [("iterations", C.c_int), ("ls_iterations", C.c_int), ("converged", C.c_int),
                ("residual", C.c_double), ("cost", C.c_double)]


_P = C.c_void_p
_I = C.c_int
_D = C.c_double
_DP = C.POINTER(C.c_double)
_IP = C.POINTER(C.c_int)
_WORLDS = Worlds

_SIGNATURES = {
    # status.h
    "iso_status_string": (C.c_char_p, [_I]),
    "iso_last_error": (C.c_char_p, []),
    "iso_clear_error": (None, []),
    "iso_version": (C.c_char_p, []),
    "iso_sizeof": (C.c_ulong, [C.c_char_p]),
    # backend.h
    "iso_cuda_compiled": (_I, []),
    "iso_backend_name": (C.c_char_p, [_I]),
    # scene.h
    "iso_default_load_options": (LoadOptions, []),
    "iso_scene_load": (_I, [C.c_char_p, C.POINTER(LoadOptions), C.POINTER(_P), C.POINTER(_P)]),
    "iso_load_report_count": (_I, [_P]),
    "iso_load_report_line": (C.c_char_p, [_P, _I]),
    "iso_load_report_free": (None, [_P]),
    "iso_scene_find_body": (_I, [_P, C.c_char_p, _IP]),
    "iso_scene_find_joint": (_I, [_P, C.c_char_p, _IP]),
    # model.h, joint.h, geometry.h, deformable.h
    "iso_model_destroy": (None, [_P]),
    "iso_model_body_count": (_I, [_P]),
    "iso_model_geometry_count": (_I, [_P]),
    "iso_model_joint_count": (_I, [_P]),
    "iso_model_actuator_count": (_I, [_P]),
    "iso_model_deformable_count": (_I, [_P]),
    "iso_model_nq": (_I, [_P]),
    "iso_model_nv": (_I, [_P]),
    "iso_model_item_name": (C.c_char_p, [_P, _I, _I]),
    "iso_model_joint_slice": (_I, [_P, _I, C.POINTER(Slice), C.POINTER(Slice)]),
    "iso_model_body_slice": (_I, [_P, _I, C.POINTER(Slice), C.POINTER(Slice)]),
    "iso_model_get_actuator": (_I, [_P, _I, C.POINTER(ActuatorDef)]),
    "iso_model_find_actuator": (_I, [_P, C.c_char_p, _IP]),
    "iso_model_find_geometry": (_I, [_P, C.c_char_p, _IP]),
    "iso_model_find_deformable": (_I, [_P, C.c_char_p, _IP]),
    "iso_model_deformable_size": (_I, [_P, _I, _IP, _IP, _IP]),
    "iso_model_compile": (_I, [_P]),
    "iso_model_is_compiled": (_I, [_P]),
    # tactile.h
    "iso_default_tactile_pad_def": (TactilePadDef, []),
    "iso_model_add_tactile_pad": (_I, [_P, C.POINTER(TactilePadDef), _IP]),
    "iso_model_tactile_pad_count": (_I, [_P]),
    "iso_model_get_tactile_pad": (_I, [_P, _I, C.POINTER(TactilePadDef)]),
    "iso_sim_tactile_count": (_I, [_P]),
    "iso_sim_taxel_offset": (_I, [_P, _I, _IP, _IP]),
    # sim.h
    "iso_default_sim_def": (SimDef, []),
    "iso_sim_create": (_I, [_P, C.POINTER(SimDef), C.POINTER(_P)]),
    "iso_sim_destroy": (None, [_P]),
    "iso_sim_step": (_I, [_P]),
    "iso_sim_world_count": (_I, [_P]),
    "iso_sim_body_count": (_I, [_P]),
    "iso_sim_time_step": (_D, [_P]),
    "iso_sim_backend": (_I, [_P]),
    "iso_sim_backend_reason": (C.c_char_p, [_P]),
    "iso_sim_threads": (_I, [_P]),
    "iso_sim_step_count": (C.c_longlong, [_P]),
    "iso_sim_state_width": (_I, [_P, _I]),
    "iso_sim_get_state": (_I, [_P, _I, _WORLDS, _DP]),
    "iso_sim_set_state": (_I, [_P, _I, _WORLDS, _DP]),
    "iso_sim_reset": (_I, [_P, _WORLDS]),
    "iso_sim_get_status": (_I, [_P, _WORLDS, C.POINTER(C.c_uint32)]),
    "iso_sim_get_body_poses": (_I, [_P, _WORLDS, _DP]),
    "iso_sim_get_body_velocities": (_I, [_P, _WORLDS, _DP]),
    "iso_sim_stage_count": (_I, []),
    "iso_sim_stage_name": (C.c_char_p, [_I]),
    "iso_sim_get_stage_times": (_I, [_P, _DP, _I, _IP]),
    "iso_sim_set_stage_timing": (_I, [_P, _I]),
    "iso_param_width": (_I, [_I]),
    "iso_param_name": (C.c_char_p, [_I]),
    "iso_sim_set_param": (_I, [_P, _I, _I, _WORLDS, _DP]),
    "iso_sim_get_param": (_I, [_P, _I, _I, _WORLDS, _DP]),
    "iso_sim_param_is_per_world": (_I, [_P, _I]),
    "iso_sim_memory_per_world": (_I, [_P, C.POINTER(C.c_size_t)]),
    "iso_sim_capacity": (CapacityDef, [_P]),
    "iso_sim_reserve": (_I, [_P, _I, _I]),
    # contact.h
    "iso_sim_get_overflow": (_I, [_P, _I, _IP, _IP, _IP]),
    "iso_sim_get_body_contact_wrench": (_I, [_P, _I, _I, _DP]),
    "iso_sim_get_contact_counts": (_I, [_P, _WORLDS, _IP, _IP, _IP]),
    "iso_sim_get_solver_stats": (_I, [_P, _I, C.POINTER(SolverStats)]),
    # view.h
    "iso_view_count": (_I, []),
    "iso_view_name": (C.c_char_p, [_I]),
    "iso_sim_view": (_I, [_P, C.c_char_p, C.POINTER(View)]),
    "iso_sim_synchronize": (_I, [_P]),
    "iso_sim_copy_view": (_I, [_P, C.c_char_p, _P]),
}

for _name, (_res, _args) in _SIGNATURES.items():
    try:
        _f = getattr(lib, _name)
    except AttributeError:
        raise ImportError(f"isobar: the library at {lib._name} lacks {_name}: it is not the version this "
                          "package was built with (reinstall with pip install ./python)") from None
    _f.restype = _res
    _f.argtypes = _args


def _check_layouts():
    """The structs mirrored here must be the library's: a library of another version (an
    ISOBAR_LIBRARY pointing elsewhere) would read or write past them."""
    for cname, mirror in (("isoSimDef", SimDef), ("isoCapacityDef", CapacityDef), ("isoContactDef", ContactDef),
                          ("isoSolverDef", SolverDef), ("isoLoadOptions", LoadOptions), ("isoWorlds", Worlds),
                          ("isoView", View), ("isoSlice", Slice), ("isoActuatorDef", ActuatorDef),
                          ("isoSolverStats", SolverStats), ("isoTactilePadDef", TactilePadDef)):
        size = lib.iso_sizeof(cname.encode())
        if size != C.sizeof(mirror):
            raise ImportError(f"isobar: the library at {lib._name} does not match this package: {cname} is "
                              f"{size} bytes there and {C.sizeof(mirror)} here (reinstall with pip install ./python)")


_check_layouts()


def check(status):
    """Raise the Python exception of a failed C call, with the library's own message."""
    if status != 0:
        raise errors.from_status(status, lib.iso_last_error().decode("utf-8", "replace"))


def worlds_all():
    """isoWorlds selecting every world."""
    return Worlds(0, 0, None, 0, None)


def worlds_mask(mask_u8):
    """isoWorlds of a uint8 mask array (kept alive by the caller)."""
    return Worlds(3, 0, None, 0, mask_u8.ctypes.data_as(C.POINTER(C.c_ubyte)))


def worlds_list(idx_i32):
    """isoWorlds of an int32 index array (kept alive by the caller)."""
    return Worlds(2, 0, idx_i32.ctypes.data_as(C.POINTER(C.c_int)), int(idx_i32.size), None)
