"""The sim's own memory as arrays: NumPy views on the CPU backend, DLPack objects on CUDA.

A C view (include/isobar/view.h) gives a pointer, a dtype, a shape (nworld, width) and strides in
elements. On the CPU backend the memory is the host's and becomes a NumPy array over it (no copy;
read-only where the step writes the values). On the CUDA backend it is device memory that NumPy
cannot touch: `DeviceArray` hands it to PyTorch, JAX or CuPy through the DLPack protocol
(`torch.from_dlpack(arr)`), again without a copy.
"""
import ctypes as C
import weakref

import numpy as np

from . import _native as N

_DTYPES = {0: np.dtype(np.float64), 1: np.dtype(np.int32), 2: np.dtype(np.uint32)}
# DLPack's (type code, bits) of each isoDType: kDLFloat = 2, kDLInt = 0, kDLUInt = 1
_DL_TYPES = {0: (2, 64), 1: (0, 32), 2: (1, 32)}
DEVICE_CPU, DEVICE_CUDA = 1, 2


def host_array(view, owner, registry=None):
    """A NumPy array over a CPU view's memory; the array keeps `owner` (the sim's handle). A weak
    reference to the buffer it views, alive while any array over it is, goes into `registry`."""
    dtype = _DTYPES[view.dtype]
    shape = (int(view.shape[0]), int(view.shape[1]))
    if shape[1] == 0 or not view.data:
        arr = np.zeros(shape, dtype)
        arr.flags.writeable = False
        return arr
    extent = (shape[0] - 1) * int(view.strides[0]) + (shape[1] - 1) * int(view.strides[1]) + 1
    raw = (C.c_char * (extent * dtype.itemsize)).from_address(view.data)
    raw._owner = owner  # the array's base chain keeps the sim's memory alive
    if registry is not None:
        registry.append(weakref.ref(raw))
    flat = np.frombuffer(raw, dtype=dtype, count=extent)
    arr = np.lib.stride_tricks.as_strided(
        flat, shape=shape, strides=(int(view.strides[0]) * dtype.itemsize, int(view.strides[1]) * dtype.itemsize),
        writeable=bool(view.writable))
    return arr


# ---- DLPack -----------------------------------------------------------------------------------

class _DLDevice(C.Structure):
    _fields_ = [("device_type", C.c_int32), ("device_id", C.c_int32)]


class _DLDataType(C.Structure):
    _fields_ = [("code", C.c_uint8), ("bits", C.c_uint8), ("lanes", C.c_uint16)]


class _DLTensor(C.Structure):
    _fields_ = [("data", C.c_void_p), ("device", _DLDevice), ("ndim", C.c_int32),
                ("dtype", _DLDataType), ("shape", C.POINTER(C.c_int64)),
                ("strides", C.POINTER(C.c_int64)), ("byte_offset", C.c_uint64)]


class _DLManagedTensor(C.Structure):
    pass


_DELETER = C.CFUNCTYPE(None, C.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", C.c_void_p),
                             ("deleter", _DELETER)]

# Managed tensors handed out and not yet deleted by their consumer, by address: each holds its
# shape and strides arrays and the producer object (so the sim outlives the consumer's tensor).
_live = {}


def _delete(ptr):
    _live.pop(C.cast(ptr, C.c_void_p).value, None)


_deleter = _DELETER(_delete)
_PyCapsule_New = C.pythonapi.PyCapsule_New
_PyCapsule_New.restype = C.py_object
_PyCapsule_New.argtypes = [C.c_void_p, C.c_char_p, C.c_void_p]


def _layout(view, col0=0, ncol=None, inner=None):
    """Shape and strides (elements) of columns [col0, col0 + ncol) of a view, split into
    (nworld, ncol / inner, inner) when `inner` is given, and the element offset of the first."""
    n = int(view.shape[1]) - col0 if ncol is None else ncol
    if inner:
        return [int(view.shape[0]), n // inner, inner], [int(view.strides[0]), inner, 1], col0
    return [int(view.shape[0]), n], [int(view.strides[0]), int(view.strides[1])], col0


def dlpack_capsule(view, owner, col0=0, ncol=None, inner=None):
    """A "dltensor" capsule over a view's memory (no copy), or over columns of it (see
    _layout); `owner` lives as long as it does."""
    code, bits = _DL_TYPES[view.dtype]
    dims, steps, first = _layout(view, col0, ncol, inner)
    shape = (C.c_int64 * len(dims))(*dims)
    strides = (C.c_int64 * len(dims))(*steps)
    m = _DLManagedTensor()
    m.dl_tensor.data = view.data
    m.dl_tensor.byte_offset = first * (bits // 8)
    m.dl_tensor.device = _DLDevice(view.device, view.device_id)
    m.dl_tensor.ndim = len(dims)
    m.dl_tensor.dtype = _DLDataType(code, bits, 1)
    m.dl_tensor.shape = C.cast(shape, C.POINTER(C.c_int64))
    m.dl_tensor.strides = C.cast(strides, C.POINTER(C.c_int64))
    m.manager_ctx = None
    m.deleter = _deleter
    addr = C.addressof(m)
    _live[addr] = (m, shape, strides, owner)
    # No capsule destructor: one would run Python code while the exception of a consumer that
    # refused the capsule is pending, which ctypes cannot do. A refused capsule's tensor stays
    # in _live (a few hundred bytes, and the sim it keeps); a consumed one is freed by its
    # deleter as DLPack says.
    return _PyCapsule_New(addr, b"dltensor", None)


class DeviceArray:
    """One of the sim's arrays in device memory (the CUDA backend), shape (nworld, width).

    Pass it to `torch.from_dlpack`, `jax.dlpack.from_dlpack` or `cupy.from_dlpack`: the
    tensor they return is the sim's memory itself. `numpy()` copies it to the host instead.
    """

    def __init__(self, sim, name, col0=0, ncol=None, inner=None):
        self._sim = sim
        self._name = name
        self._cols = (col0, ncol, inner)  # a part of the array: a pad's taxels, say

    def _view(self):
        return self._sim._c_view(self._name)

    @property
    def shape(self):
        """(nworld, width), or (nworld, n, inner) for arrays of vectors."""
        return tuple(_layout(self._view(), *self._cols)[0])

    @property
    def dtype(self):
        """The NumPy dtype of the elements."""
        return _DTYPES[self._view().dtype]

    def __dlpack_device__(self):
        """(device type, device id) as DLPack numbers them: (2, ordinal) for CUDA."""
        v = self._view()
        return (int(v.device), int(v.device_id))

    def __dlpack__(self, stream=None, **_ignored):
        """A DLPack capsule over the memory. The sim's queued work is finished first, so the
        consumer's stream sees the last step's values."""
        N.check(N.lib.iso_sim_synchronize(self._sim._ptr))
        return dlpack_capsule(self._view(), self._sim._handle, *self._cols)

    def numpy(self):
        """A host copy of the memory (through the backend's download)."""
        return self._sim._copy(self._name, *self._cols)

    def __repr__(self):
        return f"DeviceArray({self._name!r}, shape={self.shape}, dtype={self.dtype})"
