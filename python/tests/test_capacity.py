"""Per-world capacities from Python: an overflow says what it needed, the sim grows between
steps, the frozen worlds run again after a reset, and a grown sim steps as one created large."""
import numpy as np
import pytest

import isobar
from conftest import example


def test_an_overflowed_stack_grows_and_runs_on_as_one_created_large():
    # the resting stack's surfaces hold about 140 faces per world: 64 overflows at the first step
    model = isobar.Model.load(example("stack_of_five_boxes.sdf"))
    sim = isobar.Sim(model, worlds=2, max_contacts=64)
    assert sim.capacity["max_contacts"] == 64
    sim.step(3)
    st = sim._status_host()
    assert np.all(st & isobar.WORLD_OVERFLOW) and np.all(st & isobar.WORLD_FROZEN)
    need = sim.overflow(0)
    assert need["faces"] > 64 and need["candidates"] == 0
    frozen = sim.grow_to_fit()
    assert frozen.tolist() == [True, True]
    assert sim.capacity["max_contacts"] == int(np.ceil(1.25 * max(need["faces"], need["constraints"])))
    assert sim.capacity["max_candidates"] == isobar.Sim(model, worlds=1).capacity["max_candidates"]
    # the stack settles into more faces than its first steps had (80 at step 1, 136 at rest): the
    # headroom lets the second rollout fit
    rounds = 0
    while np.any(frozen) and rounds < 3:
        sim.reset(frozen)
        sim.step(20)
        frozen = sim.grow_to_fit()
        rounds += 1
    assert not np.any(sim._status_host()) and rounds == 2
    grown = sim.capacity["max_contacts"]
    assert grown > need["faces"]
    # the same 20 steps in a sim created with the grown capacity: the same bits
    ref = isobar.Sim(model, worlds=2, max_contacts=grown)
    ref.step(20)
    assert np.array_equal(np.asarray(sim.q), np.asarray(ref.q))
    assert np.array_equal(np.asarray(sim.v), np.asarray(ref.v))
    # nothing overflowed: nothing to grow, no world to reset
    assert not np.any(sim.grow_to_fit()) and sim.capacity["max_contacts"] == grown


def test_capacity_calls_check_their_arguments():
    sim = isobar.Sim(isobar.Model.load(example("stack_of_five_boxes.sdf")), worlds=2)
    with pytest.raises(IndexError, match="out of range"):
        sim.overflow(2)
    with pytest.raises(isobar.InvalidArgumentError):
        sim.reserve(max_contacts=-1)
    before = sim.capacity
    sim.reserve(max_contacts=1)  # below the capacity in use: kept
    assert sim.capacity == before
    with pytest.raises(isobar.InvalidArgumentError, match="headroom"):
        sim.grow_to_fit(headroom=0.5)


def test_reserve_refuses_while_an_array_views_the_memory_it_moves():
    sim = isobar.Sim(isobar.Model.load(example("stack_of_five_boxes.sdf")), worlds=2)
    sim.step(2)
    cap = sim.capacity["max_contacts"]
    q = sim.q
    row = q[1]  # a slice keeps the memory too
    before = row.copy()
    del q
    with pytest.raises(isobar.StateError, match="still referenced"):
        sim.reserve(max_contacts=cap + 100)
    assert sim.capacity["max_contacts"] == cap and np.array_equal(row, before)
    del row
    sim.reserve(max_contacts=cap + 100)
    assert sim.capacity["max_contacts"] == cap + 100
    assert np.array_equal(sim.q[1], before)  # a new array over the moved memory, same values
    sim.step(1)
