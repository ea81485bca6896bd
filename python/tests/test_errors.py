"""Bad arguments raise Python exceptions that say what is wrong; nothing crashes."""
import numpy as np
import pytest

import isobar
from conftest import example


def test_bad_files():
    with pytest.raises(isobar.FileError):
        isobar.Model.load("/nonexistent/scene.sdf")
    with pytest.raises(isobar.InvalidArgumentError, match="unknown scene format"):
        isobar.Model.load(example("README.md"))
    with pytest.raises(isobar.InvalidArgumentError, match="time_step"):
        isobar.Model.load(example("pendulum.sdf"), time_step=-1)


def test_bad_sim_arguments(arm):
    with pytest.raises(isobar.InvalidArgumentError, match="backend"):
        isobar.Sim(arm, backend="tpu")
    with pytest.raises(isobar.InvalidArgumentError, match="worlds"):
        isobar.Sim(arm, worlds=0)
    with pytest.raises(isobar.InvalidArgumentError, match="worlds must be an int"):
        isobar.Sim(arm, worlds=2.5)


def test_wrong_shapes_dtypes_and_indices(arm):
    sim = isobar.Sim(arm, worlds=3, threads=1)
    with pytest.raises(isobar.InvalidArgumentError, match=r"\(3, 2\)"):
        sim.effort = np.zeros((2, 2))
    with pytest.raises(isobar.InvalidArgumentError, match="numbers"):
        sim.effort = [["a", "b"]] * 3
    with pytest.raises(isobar.InvalidArgumentError, match="finite"):
        sim.set_state("v", [np.inf, 0])
    with pytest.raises(IndexError, match="world index 3"):
        sim.set_state("q", [0, 0], worlds=[0, 3])
    with pytest.raises(isobar.InvalidArgumentError, match="mask"):
        sim.reset(np.array([True, False]))
    with pytest.raises(isobar.InvalidArgumentError, match="bool"):
        sim.reset(np.array([1, 0, 1]))
    with pytest.raises(isobar.InvalidArgumentError, match="no parameter"):
        sim.set_param("mass", 1.0)
    with pytest.raises(isobar.InvalidArgumentError, match="world 1"):
        sim.set_param("actuator_gains", [[1, 1], [-1, 0], [1, 1]], item=0)
    with pytest.raises(isobar.InvalidArgumentError, match="out of range"):
        sim.set_param("actuator_gains", [1, 1], item=7)
    with pytest.raises(isobar.InvalidArgumentError, match="no array"):
        sim.array("velocity")
    with pytest.raises(isobar.NotFoundError):
        arm.joint("wrist")
    with pytest.raises(isobar.InvalidArgumentError, match="no state field"):
        sim.get_state("pos")


def test_stage_times_need_the_timers_on(arm):
    sim = isobar.Sim(arm, worlds=2, threads=1)
    assert sim.stage_timing is False
    sim.step(3)
    with pytest.raises(isobar.StateError, match="iso_sim_set_stage_timing"):
        sim.stage_times()
    sim.stage_timing = True
    sim.step(3)
    t = sim.stage_times()
    assert t["solve"] > 0 and t["kinematics"] > 0 and all(x >= 0 for x in t.values())
    sim.stage_timing = False
    sim.step(3)
    assert sim.stage_times() == t  # off: kept, not added to


def test_closed_objects_refuse_calls(arm):
    sim = isobar.Sim(arm, worlds=1)
    sim.close()
    with pytest.raises(isobar.StateError, match="closed"):
        sim.step()
    sim.close()  # twice is fine


def test_the_struct_mirrors_match_the_library():
    # the import checks them; a mismatch must name the struct (seen here through the check)
    from isobar import _native as N
    assert N.lib.iso_sizeof(b"isoSimDef") == __import__("ctypes").sizeof(N.SimDef)
    assert N.lib.iso_sizeof(b"noSuchStruct") == 0
    N._check_layouts()
