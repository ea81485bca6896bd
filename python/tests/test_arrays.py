"""The sim's arrays are its own memory: no copy on the way in or out."""
import numpy as np
import pytest

import isobar
from conftest import example


def addr(a):
    return a.__array_interface__["data"][0]


def test_writes_through_a_view_are_what_the_next_step_reads(arm):
    sim = isobar.Sim(arm, worlds=3, threads=1)
    # without gains the actuators apply the effort as given: the actuation a step reports is
    # then exactly the value written into the effort array
    sim.set_param("actuator_gains", [0.0, 0.0], item=0)
    sim.set_param("actuator_gains", [0.0, 0.0], item=1)
    effort = sim.effort
    effort[1, 0] = 0.75
    effort[2, :] = [-0.5, 0.25]
    sim.step()
    assert sim.actuation[0].tolist() == [0.0, 0.0]
    assert sim.actuation[1].tolist() == [0.75, 0.0]
    assert sim.actuation[2].tolist() == [-0.5, 0.25]
    # the effort moved the arm of world 1 and not world 0's
    assert sim.v[1, 0] != sim.v[0, 0]


def test_addresses_stay_across_steps_and_resets(arm):
    sim = isobar.Sim(arm, worlds=4, threads=1)
    before = {n: addr(sim.array(n)) for n in ("q", "v", "effort", "target_position", "status")}
    held = sim.q  # an array taken before stepping sees the later steps
    sim.target_position[:] = [0.5, -1.0]
    sim.step(50)
    sim.reset(np.array([True, False, True, False]))
    sim.step(5)
    for n, a in before.items():
        assert addr(sim.array(n)) == a, n
    assert np.array_equal(held, sim.get_state("q"))
    assert np.shares_memory(held, sim.q)


def test_views_hold_the_getters_values(arm):
    sim = isobar.Sim(arm, worlds=3, threads=1)
    sim.target_position[:] = [[0.3, -0.2], [0.1, 0.4], [-0.6, 0.2]]
    sim.step(30)
    for name in ("q", "v", "time", "effort", "target_position", "actuation"):
        assert np.array_equal(sim.array(name), sim.get_state(name)), name
    for name in isobar.VIEW_NAMES:  # the backend's download (what DeviceArray.numpy() uses)
        assert np.array_equal(sim.array(name), sim._copy(name)), name
        assert sim._copy(name).dtype == sim.array(name).dtype, name


def test_arrays_a_step_writes_are_read_only(arm):
    sim = isobar.Sim(arm, worlds=2, threads=1)
    for name in ("actuation", "status", "solver_iterations", "solver_residual"):
        with pytest.raises(ValueError):
            sim.array(name)[0, 0] = 1


def test_dlpack_shares_the_memory(arm):
    sim = isobar.Sim(arm, worlds=2, threads=1)
    cap = isobar.arrays.dlpack_capsule(sim._c_view("q"), sim._handle)

    class Producer:
        def __dlpack__(self, stream=None, **kw):
            return cap

        def __dlpack_device__(self):
            return (1, 0)

    q = np.from_dlpack(Producer())
    assert q.shape == (2, arm.nq)
    assert addr(q) == addr(sim.q)
    sim.set_state("q", [0.25, -0.5])
    assert q.tolist() == [[0.25, -0.5], [0.25, -0.5]]
    # the consumer frees the managed tensor through its deleter once its array goes
    live = len(isobar.arrays._live)
    del q, cap
    assert len(isobar.arrays._live) == live - 1


def test_solver_arrays_follow_the_stats():
    m = isobar.Model.load(example("sphere_on_box.sdf"))
    sim = isobar.Sim(m, worlds=2, threads=1)
    sim.step(400)
    assert sim.solver_iterations.dtype == np.int32
    assert np.array_equal(sim.solver_iterations, sim._copy("solver_iterations"))
    assert np.array_equal(sim.solver_residual, sim._copy("solver_residual"))
    assert (sim.solver_iterations > 0).all()
    assert (sim.solver_converged == 1).all()


def test_cuda_arrays_are_dlpack_objects(arm):
    if not isobar.cuda_compiled():
        pytest.skip("the library was built without the CUDA backend")
    try:
        sim = isobar.Sim(arm, worlds=2, backend="cuda")
    except isobar.BackendError as e:
        pytest.skip(f"no CUDA device: {e}")
    q = sim.q
    assert isinstance(q, isobar.arrays.DeviceArray)
    assert q.__dlpack_device__()[0] == 2
    assert q.shape == (2, arm.nq)
    assert q.numpy().shape == (2, arm.nq)


def test_an_array_keeps_its_sim_alive(arm):
    import gc
    import weakref
    sim = isobar.Sim(arm, worlds=2, threads=1)
    sim.set_state("q", [0.5, 0.25])
    q = sim.q
    ref = weakref.ref(sim._handle)
    sim.close()
    del sim
    gc.collect()
    assert ref() is not None  # the array still references the sim's memory
    assert q.tolist() == [[0.5, 0.25], [0.5, 0.25]]
    del q
    assert ref() is None  # and nothing else holds it: freed at once, no cycle
