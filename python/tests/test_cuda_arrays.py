"""The CUDA backend's arrays: DLPack objects over device memory. Runs where the library has the
CUDA backend and a device answers — a GPU, or the emulated device of an ISO_CUDA_EMULATE build
(scripts/test.sh builds one for this file), whose "device memory" the host can read, so the
capsules' pointers can be checked against the sim's own."""
import ctypes as C

import numpy as np
import pytest

import isobar
from isobar import arrays
from conftest import example


def cuda_sim(model, worlds):
    if not isobar.cuda_compiled():
        pytest.skip("the library was built without the CUDA backend")
    try:
        return isobar.Sim(model, worlds=worlds, backend="cuda")
    except isobar.BackendError as e:
        pytest.skip(f"no CUDA device: {e}")


def tensor_of(capsule):
    """The DLManagedTensor inside a "dltensor" capsule (not consumed: it stays the capsule's)."""
    get = C.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = C.c_void_p, [C.py_object, C.c_char_p]
    return arrays._DLManagedTensor.from_address(get(capsule, b"dltensor"))


def same(dev, host, name, gpu):
    """The emulated device runs the CPU's item code: the same bits. On a GPU (see the test) the
    physical arrays agree within ten times the solver's relative tolerance (1e-6) of each array's
    largest value and the iteration counts within one; the residuals are not compared (each is
    wherever its own solve stopped under the tolerance)."""
    host = np.ascontiguousarray(host)
    if not gpu:
        assert dev.tobytes() == host.tobytes(), name
    elif name == "solver_iterations":
        assert np.abs(dev.astype(np.int64) - host).max() <= 1, name
    elif name != "solver_residual" and dev.size:
        worst, scale = np.abs(dev - host).max(), np.abs(host).max()
        assert worst <= 1e-5 * scale, f"{name}: worst difference {worst:g} of {scale:g}"


def test_device_arrays_hold_the_cpu_backends_values():
    """Every array of a 300-step grasp. A GPU contracts to FMA, and the grasp amplifies that: on
    an H200 q had drifted by 2.5e-5 m after 300 steps. So there the GPU takes the CPU's state and
    both take one more step, which is what is compared (not yet run on a GPU in this form)."""
    m = isobar.Model.load(example("pick.sdf"))
    g = cuda_sim(m, 3)
    c = isobar.Sim(m, worlds=3, threads=1)
    for s in (g, c):
        s.target_position = [0.1, 0.04, 0.04]
        s.body_contact_wrench  # noqa: B018 — asked for before stepping: the stage runs
    g.step(300)
    c.step(300)
    gpu = "(sm_" in g.backend_reason
    if gpu:
        for field in ("q", "v", "time"):
            g.set_state(field, c.array(field))
        g.step()
        c.step()
    for name in isobar.VIEW_NAMES:
        d = g.array(name)
        assert isinstance(d, arrays.DeviceArray)
        assert d.shape == c.array(name).shape and d.dtype == c.array(name).dtype, name
        same(d.numpy(), c.array(name), name, gpu)
    w = g.body_contact_wrench
    assert w.shape == c.body_contact_wrench.shape
    same(w.numpy(), c.body_contact_wrench, "body_contact_wrench", gpu)
    assert np.abs(c.body_contact_wrench).max() > 0.1  # the grip: a real comparison
    for pad in range(m.tactile_pad_count):
        f = g.taxel_forces(pad)
        assert f.shape == c.taxel_forces(pad).shape
        same(f.numpy(), c.taxel_forces(pad), f"taxel_forces({pad})", gpu)
        same(g.taxel_pressures(pad).numpy(), c.taxel_pressures(pad), f"taxel_pressures({pad})", gpu)
    assert np.abs(c.taxel_pressures(0)).sum() > 0  # the grip presses the pads: a real comparison


def test_dlpack_capsules_describe_the_device_memory(arm):
    g = cuda_sim(arm, 2)
    q = g.q
    assert q.__dlpack_device__() == (2, 0)
    t = tensor_of(q.__dlpack__()).dl_tensor
    view = g._c_view("q")
    assert t.data == view.data and t.byte_offset == 0
    assert (t.device.device_type, t.device.device_id) == (2, 0)
    assert (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (2, 64, 1)
    assert t.ndim == 2 and [t.shape[0], t.shape[1]] == [2, arm.nq]
    assert [t.strides[0], t.strides[1]] == [arm.nq, 1]


def test_dlpack_of_a_pads_part_and_the_wrenches():
    m = isobar.Model.load(example("pick.sdf"))
    g = cuda_sim(m, 2)
    f = g.taxel_forces(1)
    t = tensor_of(f.__dlpack__()).dl_tensor
    view = g._c_view("taxel_force")
    off = 3 * g.taxel_pressures(0).shape[1]  # pad 1 starts after pad 0's taxels
    assert t.data == view.data and t.byte_offset == 8 * off
    assert t.ndim == 3 and [t.shape[k] for k in range(3)] == [2, f.shape[1], 3]
    assert [t.strides[k] for k in range(3)] == [view.strides[0], 3, 1]
    w = tensor_of(g.body_contact_wrench.__dlpack__()).dl_tensor
    assert w.ndim == 3 and [w.shape[k] for k in range(3)] == [2, len(m.body_names), 6]


def test_numpy_refuses_device_memory_cleanly(arm):
    g = cuda_sim(arm, 1)
    with pytest.raises((RuntimeError, BufferError, TypeError)):
        np.from_dlpack(g.q)


def test_torch_reads_the_sims_device_memory_in_place(arm):
    """What an RL loop does on a GPU: torch.from_dlpack over the sim's state, no copy. Runs only
    where PyTorch sees a real CUDA device (the emulated device's memory is the host's)."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA device")
    g = cuda_sim(arm, 4)
    g.step(5)
    q = torch.from_dlpack(g.q)
    assert q.is_cuda and q.dtype == torch.float64 and tuple(q.shape) == (4, arm.nq)
    assert q.data_ptr() == g._c_view("q").data  # the sim's memory itself, not a copy
    assert np.array_equal(q.cpu().numpy(), g.q.numpy())
    before = q.clone()
    g.step(50)
    torch.from_dlpack(g.q)  # __dlpack__ waits for the sim's queued steps
    assert np.array_equal(q.cpu().numpy(), g.q.numpy())  # the same tensor now holds the new state
    assert not torch.equal(q, before), "fifty steps of a PD arm under gravity move it"
