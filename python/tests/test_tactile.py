"""Tactile pads and contact wrenches from Python: views of what the step computed."""
import numpy as np
import pytest

import isobar

SCENE = """<?xml version="1.0"?>
<sdf version="1.9" xmlns:drake="http://drake.mit.edu"><world name="w">
<model name="pad"><static>true</static><link name="pad">
  <collision name="pad"><pose>0 0 -0.025 0 0 0</pose>
    <geometry><box><size>0.2 0.2 0.05</size></box></geometry>
    <drake:proximity_properties><drake:compliant_hydroelastic/>
      <drake:hydroelastic_modulus>1e7</drake:hydroelastic_modulus></drake:proximity_properties>
  </collision></link></model>
<model name="box"><pose>{x} 0 0.05 0 0 0</pose><link name="box">
  <inertial><mass>1</mass><inertia><ixx>0.001667</ixx><iyy>0.001667</iyy><izz>0.001667</izz>
    <ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia></inertial>
  <collision name="box"><geometry><box><size>0.1 0.1 0.1</size></box></geometry>
    <drake:proximity_properties><drake:rigid_hydroelastic/></drake:proximity_properties>
  </collision></link></model>
</world></sdf>"""
S, N = 0.0025, 64  # spacing and taxels per side: the 0.1 m patch's edges fall midway between taxels


def padded(tmp_path, x=0.0):
    f = tmp_path / "pad.sdf"
    f.write_text(SCENE.format(x=x))
    m = isobar.Model.load(f, compile=False)
    assert not m.compiled
    pad = m.add_tactile_pad("pad::pad::pad", rows=N, cols=N, spacing=S)
    m.compile()
    return m, pad


@pytest.mark.parametrize("x", [0.0, 0.02])
def test_a_resting_box_weighs_its_weight_under_its_centre(tmp_path, x):
    m, pad = padded(tmp_path, x)
    sim = isobar.Sim(m, worlds=2, threads=1)
    wrench = sim.body_contact_wrench  # asked for before stepping: computed from now on
    sim.step(400)
    p = sim.taxel_pressures(pad)
    f = sim.taxel_forces(pad)
    assert p.shape == (2, N * N) and f.shape == (2, N * N, 3)
    w = 9.81
    # the pressures' integral is the solved normal force: at rest after 0.4 s it is the weight
    # to the residual settling, 1e-4 of it (tests/test_tactile.c measures 1e-4 N at 1 kg)
    load = p.sum(axis=1) * S * S
    assert np.all(np.abs(load - w) <= 1e-4 * w + 1e-4), load
    assert np.allclose(f[..., 2].sum(axis=1), -load, rtol=0, atol=1e-12 * w)
    # the centre of pressure under the centre of mass: the patch covers whole taxel columns at
    # both offsets, so only rounding and settling move it, far below a micrometre
    xs = (np.arange(N * N) % N - (N - 1) / 2) * S
    ys = (np.arange(N * N) // N - (N - 1) / 2) * S
    cop = np.stack([(p * xs).sum(1), (p * ys).sum(1)], 1) / p.sum(1)[:, None]
    com = sim.body_poses()[:, m.body("box"), :2]
    assert np.all(np.abs(cop - com) < 1e-6), (cop, com)
    assert (p > 0).sum(axis=1).tolist() == [1600, 1600]
    # the same contact seen as the box's net wrench: the taxels sum the faces' forces up to the
    # shares of taxels on polygon edges, decided within 1e-6 of a spacing (TACTILE_EDGE_TOL)
    wz = wrench[:, m.body("box"), 5]
    assert np.allclose(wz, load, rtol=1e-6), (wz, load)


def test_taxels_are_views_that_follow_the_steps(tmp_path):
    m, pad = padded(tmp_path)
    sim = isobar.Sim(m, worlds=2, threads=1)
    p = sim.taxel_pressures(pad)
    assert not p.any()
    sim.step(50)
    assert p.any() and np.shares_memory(p, sim.array("taxel_pressure"))
    with pytest.raises(ValueError):
        p[0, 0] = 1.0
    sim.reset(np.array([True, False]))
    assert not p[0].any() and p[1].any()
    with pytest.raises(isobar.NotFoundError):
        sim.taxel_pressures(1)


def test_pads_need_an_uncompiled_model(tmp_path):
    f = tmp_path / "pad.sdf"
    f.write_text(SCENE.format(x=0))
    m = isobar.Model.load(f)
    with pytest.raises(isobar.StateError):
        m.add_tactile_pad(0, 4, 4, 0.01)
    m = isobar.Model.load(f, compile=False)
    with pytest.raises(isobar.InvalidArgumentError):
        m.add_tactile_pad(0, 0, 4, 0.01)
    with pytest.raises(isobar.StateError):
        isobar.Sim(m)


def test_taxels_first_read_after_steps_are_the_last_steps(tmp_path):
    m, pad = padded(tmp_path, 0.01)
    each, later = isobar.Sim(m, worlds=2, threads=1), isobar.Sim(m, worlds=2, threads=2)
    each.taxel_forces(pad)  # viewed before stepping: every step samples
    each.step(300)
    later.step(300)  # nobody has read them: sampled at the first read below
    later.v[:] = 0  # the state's velocities written through the array: not what the step solved
    np.testing.assert_array_equal(later.taxel_forces(pad), each.taxel_forces(pad))
    np.testing.assert_array_equal(later.taxel_pressures(pad), each.taxel_pressures(pad))
    assert np.count_nonzero(later.taxel_pressures(pad)) > 100
