"""isobar: batched rigid and deformable body simulation with Drake's hydroelastic contact.

    import isobar
    model = isobar.Model.load("examples/arm_pd.urdf")
    sim = isobar.Sim(model, worlds=1024)
    sim.target_position[:] = [0.5, -1.0]   # written into the sim's own input buffer
    sim.step(100)
    print(sim.q[:4])                         # NumPy views of the sim's memory, (nworld, nq)
"""
from ._native import lib as _lib
from .errors import (BackendError, CapacityError, FileError, InvalidArgumentError, IsobarError,
                     NotFoundError, ParseError, StateError, UnsupportedError)
from .model import Model
from .random import Randomizer
from .sim import (PARAMS, VIEW_NAMES, WORLD_FROZEN, WORLD_LINE_SEARCH, WORLD_NONFINITE,
                  WORLD_NOT_CONVERGED, WORLD_NOT_SPD, WORLD_OVERFLOW, WORLD_RUNAWAY, Sim)

__version__ = _lib.iso_version().decode()


def cuda_compiled():
    """True when the library was built with the CUDA backend."""
    return bool(_lib.iso_cuda_compiled())


__all__ = ["Model", "Sim", "Randomizer", "PARAMS", "VIEW_NAMES", "cuda_compiled", "IsobarError",
           "InvalidArgumentError", "NotFoundError", "StateError", "BackendError", "FileError",
           "ParseError", "CapacityError", "UnsupportedError", "WORLD_NONFINITE", "WORLD_NOT_SPD",
           "WORLD_OVERFLOW", "WORLD_NOT_CONVERGED", "WORLD_LINE_SEARCH", "WORLD_RUNAWAY",
           "WORLD_FROZEN"]
