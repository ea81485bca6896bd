"""Sim.contact_counts: the contacts of many worlds in one read."""
import numpy as np
import pytest

import isobar
from conftest import example


def test_counts_of_hydroelastic_faces_and_point_contacts():
    stack = isobar.Sim(isobar.Model.load(example("stack_of_five_boxes.sdf")), worlds=3)
    stack.step(50)
    faces, points, cons = stack.contact_counts()
    assert faces.dtype == np.int32 and faces.shape == (3,)
    assert (faces > 0).all() and (points == 0).all()  # five boxes resting on each other
    assert ((cons > 0) & (cons <= faces)).all()  # a constraint per face that presses
    assert (faces == faces[0]).all()  # the worlds are copies
    f2, _, _ = stack.contact_counts([2, 0])
    assert list(f2) == [faces[2], faces[0]]
    pts = isobar.Sim(isobar.Model.load(example("point_contact.sdf")), worlds=2)
    pts.step(200)
    faces, points, cons = pts.contact_counts(np.array([True, False]))
    assert faces.shape == (1,) and faces[0] == 0 and points[0] > 0 and cons[0] == points[0]


def test_counts_after_a_new_state_wait_for_the_next_step():
    s = isobar.Sim(isobar.Model.load(example("compliant_box_on_plane.sdf")), worlds=2)
    s.step(10)
    s.set_state("q", s.get_state("q"))
    with pytest.raises(isobar.StateError):
        s.contact_counts()
    s.step()
    assert (s.contact_counts()[0] > 0).all()
