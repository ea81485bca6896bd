"""The Gymnasium environments: the checker, the vector API, seeding, autoreset and the tasks'
physics (a reachable target is reached, a closed grip lifts the cube and an open one does not)."""
import warnings

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402

from isobar.envs import LiftEnv, ReachEnv, SingleEnv  # noqa: E402

TASKS = [(ReachEnv, {"max_episode_steps": 20}), (LiftEnv, {"max_episode_steps": 10}),
         (LiftEnv, {"max_episode_steps": 10, "tactile": True})]


def bits(a):
    """The bytes of an array: comparisons of these are bitwise (−0.0 ≠ 0.0, NaN == NaN)."""
    return np.ascontiguousarray(a).tobytes()


@pytest.mark.parametrize("cls,kw", TASKS)
def test_gymnasium_checker_passes_without_warnings(cls, kw):
    # Gymnasium's checker reports soft problems (infinite bounds, an action space that is
    # not normalised, non-deterministic seeding, reused buffers) as warnings: they fail here
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(SingleEnv(cls, **kw), skip_render_check=True)


@pytest.mark.parametrize("cls,kw", TASKS)
def test_vector_spaces_shapes_and_dtypes(cls, kw):
    env = cls(3, threads=1, **kw)
    assert env.num_envs == 3
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    so, sa = env.single_observation_space, env.single_action_space
    assert env.observation_space.shape == (3,) + so.shape
    assert env.action_space.shape == (3,) + sa.shape
    assert so.dtype == np.float32 and sa.dtype == np.float32
    assert np.all(np.isfinite(so.low)) and np.all(np.isfinite(so.high))
    assert (sa.low == -1).all() and (sa.high == 1).all()
    obs, info = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape and obs.dtype == np.float32
    assert obs in env.observation_space and isinstance(info, dict)
    env.action_space.seed(0)
    obs, rew, term, trunc, info = env.step(env.action_space.sample())
    assert obs in env.observation_space
    assert rew.shape == (3,) and rew.dtype == np.float64
    assert term.shape == trunc.shape == (3,) and term.dtype == trunc.dtype == np.bool_
    assert all(v.shape[0] == 3 for v in info.values())
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros((2,) + sa.shape))
    with pytest.raises(ValueError, match="finite"):
        env.step(np.full((3,) + sa.shape, np.nan))
    env.close()


def rollout(cls, kw, seed, steps, worlds=4):
    """Observations, rewards and flags of `steps` random steps after reset(seed)."""
    env = cls(worlds, threads=1, **kw)
    env.action_space.seed(seed + 1)
    out = [bits(env.reset(seed=seed)[0])]
    for _ in range(steps):
        obs, rew, term, trunc, _ = env.step(env.action_space.sample())
        out += [bits(obs), bits(rew), bits(term), bits(trunc)]
    env.close()
    return out


@pytest.mark.parametrize("cls,kw", TASKS)
def test_seeded_rollouts_are_bitwise_reproducible(cls, kw):
    # long enough to cross an autoreset: the reset states come from the seeded generator too
    steps = kw["max_episode_steps"] + 3
    a = rollout(cls, kw, 7, steps)
    b = rollout(cls, kw, 7, steps)
    assert a == b
    c = rollout(cls, kw, 8, steps)
    assert a[0] != c[0]  # another seed, other initial states


def test_autoreset_next_step_resets_exactly_the_finished_worlds():
    # A twin without autoreset steps the same actions: worlds that did not finish must match
    # it bit for bit, the finished ones must start over (episode step 0, arm at rest).
    n, horizon = 4, 6
    env = ReachEnv(n, threads=1, max_episode_steps=horizon)
    twin = ReachEnv(n, threads=1, max_episode_steps=horizon, autoreset_mode="Disabled")
    env.reset(seed=3)
    twin.reset(seed=3)
    rng = np.random.default_rng(0)
    # stagger the episodes: worlds 1 and 3 restart after two steps (the same draws in both)
    for _ in range(2):
        a = rng.uniform(-1, 1, (n, 2))
        env.step(a)
        twin.step(a)
    stagger = np.array([False, True, False, True])
    env.reset(options={"reset_mask": stagger})
    twin.reset(options={"reset_mask": stagger})
    assert env.episode_step.tolist() == [2, 0, 2, 0]
    for k in range(horizon - 2):
        a = rng.uniform(-1, 1, (n, 2))
        obs, rew, term, trunc, info = env.step(a)
        tobs, *_ = twin.step(a)
        assert bits(obs) == bits(tobs)
    # worlds 0 and 2 reach the horizon now
    assert trunc.tolist() == [True, False, True, False] and not term.any()
    assert info["_episode_length"].tolist() == [True, False, True, False]
    assert info["episode_length"][0] == horizon and info["episode_length"][2] == horizon
    assert env.episode_count.tolist() == [1, 0, 1, 0]
    a = rng.uniform(-1, 1, (n, 2))
    obs, rew, term, trunc, info = env.step(a)
    tobs, *_ = twin.step(a)
    done = np.array([True, False, True, False])
    assert bits(obs[~done]) == bits(tobs[~done])
    assert bits(env.sim.q[~done]) == bits(twin.sim.q[~done])
    assert bits(env.target[~done]) == bits(twin.target[~done])
    assert (rew[done] == 0).all() and not term[done].any() and not trunc[done].any()
    assert env.episode_step.tolist() == [0, horizon - 1, 0, horizon - 1]
    assert (env.sim.v[done] == 0).all() and (env.sim.time[done] == 0).all()
    assert np.abs(env.sim.q[done]).max() <= 0.1  # the reset's ±0.1 rad about q = 0
    assert not np.array_equal(env.target[done], twin.target[done])  # new targets were drawn


def test_autoreset_same_step_returns_final_and_first_observations():
    n, horizon = 3, 4
    env = ReachEnv(n, threads=1, max_episode_steps=horizon, autoreset_mode=AutoresetMode.SAME_STEP)
    twin = ReachEnv(n, threads=1, max_episode_steps=horizon, autoreset_mode="Disabled")
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    env.reset(seed=5)
    twin.reset(seed=5)
    a = np.full((n, 2), 0.3)
    for _ in range(horizon):
        obs, rew, term, trunc, info = env.step(a)
        tobs, trew, *_ = twin.step(a)
    assert trunc.all() and info["_final_obs"].all()
    for i in range(n):
        assert bits(info["final_obs"][i]) == bits(tobs[i])
    assert bits(rew) == bits(trew)  # the final step's reward is the real one
    assert (env.sim.time == 0).all() and (env.episode_step == 0).all()
    assert bits(obs[:, 4:6]) == bits(env.target.astype(np.float32))  # the new episode's targets


def test_episode_counters_and_returns():
    env = ReachEnv(2, threads=1, max_episode_steps=5)
    env.reset(seed=1)
    total = np.zeros(2)
    for k in range(5):
        obs, rew, term, trunc, info = env.step(np.zeros((2, 2)))
        total += rew
        assert env.episode_step.tolist() == [k + 1, k + 1]
    assert trunc.all()
    assert np.array_equal(info["episode_return"], total)
    assert np.array_equal(env.episode_return, total)
    assert env.episode_count.tolist() == [1, 1]


def test_reset_mask_leaves_other_worlds_bitwise_untouched():
    env = LiftEnv(3, threads=1)
    env.reset(seed=2)
    for _ in range(3):
        env.step(np.ones((3, 3)))
    keep = {name: env.sim.array(name).copy() for name in ("q", "v", "time", "target_position")}
    mask = np.array([False, True, False])
    obs, _ = env.reset(options={"reset_mask": mask})
    for name, before in keep.items():
        assert bits(env.sim.array(name)[~mask]) == bits(before[~mask]), name
    assert env.sim.time[1, 0] == 0 and env.episode_step.tolist() == [3, 0, 3]
    with pytest.raises(ValueError, match="reset_mask"):
        env.reset(options={"reset_mask": np.array([1, 0, 1])})


def test_reach_fingertip_and_a_reachable_target_is_reached():
    env = ReachEnv(16, threads=1, max_episode_steps=100)
    obs, _ = env.reset(seed=4)
    # the fingertip from the fore link's pose against planar forward kinematics from q;
    # float32 observations round to ~1e-7 m over lengths of 1 m
    q1, q2 = obs[:, 0].astype(float), obs[:, 1].astype(float)
    fk = np.stack([0.5 * np.cos(q1) + 0.5 * np.cos(q1 + q2),
                   1 - 0.5 * np.sin(q1) - 0.5 * np.sin(q1 + q2)], axis=1)
    assert np.abs(obs[:, 6:8] - fk).max() < 1e-6
    # the two-link inverse kinematics of each target (elbow bent toward the side that keeps
    # the shoulder inside its limits), held as the PD targets for the whole episode
    x, d = env.target[:, 0], 1 - env.target[:, 1]
    r2 = x * x + d * d
    phi = np.arctan2(d, x)
    th2 = np.arccos(np.clip((r2 - 0.5) / 0.5, -1, 1)) * np.where(phi >= 0, 1, -1)
    th1 = phi - th2 / 2
    assert np.abs(th1).max() < 3 and np.abs(th2).max() < 3  # within the joint limits
    act = np.stack([th1, th2], axis=1) / 3.0
    for _ in range(100):
        obs, rew, term, trunc, info = env.step(act)
    # the PD arm sags under gravity by about torque / kp (about 0.01 rad: 1 cm at 1 m)
    assert info["distance"].max() < 0.03
    assert trunc.all()


def test_lift_observation_matches_body_poses_and_jitter():
    env = LiftEnv(8, threads=1)
    obs, _ = env.reset(seed=9)
    poses = env.sim.body_poses()
    cube = env.model.body("cube")
    assert np.array_equal(obs[:, 6:9], poses[:, cube, :3].astype(np.float32))
    assert np.abs(poses[:, cube, 0]).max() <= 0.005 and np.abs(poses[:, cube, 1]).max() <= 0.01
    assert len(set(poses[:, cube, 0].tolist())) == 8  # every world drew its own start
    # the gripper's centre is 3 cm above the cube's centre at the start (the finger pads'
    # centres at 6 cm, the cube's at 3 cm)
    assert np.allclose(obs[:, 21], -0.03, atol=1e-7)


def test_lift_a_closed_grip_lifts_the_cube_and_an_open_one_does_not():
    env = LiftEnv(2, threads=1)
    env.reset(seed=0)
    # world 0: fingers closed (8 N grip), lift up; world 1: fingers open, lift up
    act = np.array([[1.0, 1.0, 1.0], [1.0, -1.0, -1.0]])
    success = np.zeros(2, bool)
    for _ in range(env.max_episode_steps):
        obs, rew, term, trunc, info = env.step(act)
        success |= info["is_success"]
    assert success.tolist() == [True, False]
    assert info["height"][0] > 0.1  # carried well above the 5 cm success height
    assert abs(info["height"][1]) < 0.002  # resting on the ground (compliant settling)
    assert env.episode_return[0] > 50 > env.episode_return[1]


def test_lift_touch_reads_the_grip():
    env = LiftEnv(2, threads=1, tactile=True)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (2, 22 + 2 * 160)
    assert not obs[:, 22:].any()  # open fingers touch nothing
    act = np.array([[-1.0, 1.0, 1.0], [-1.0, -1.0, -1.0]])  # world 0 grips, world 1 stays open
    for _ in range(25):
        obs, *_ = env.step(act)
    touch = obs[:, 22:].astype(np.float64) * 1e4  # Pa
    s2 = 0.005 ** 2  # a taxel's cell, m²
    left, right = touch[0, :160].sum() * s2, touch[0, 160:].sum() * s2
    # the fingers' actuators saturate at 8 N; the pads sample each finger's contact to within
    # the edge cells' share (tests/test_scene_tactile.c bounds it by about 0.54 N)
    assert abs(left - 8.0) < 0.6 and abs(right - 8.0) < 0.6, (left, right)
    assert not touch[1].any()


def test_registered_with_gymnasium():
    env = gym.make("isobar/Reach-v0", max_episode_steps=5)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (10,)
    venv = gym.make_vec("isobar/Lift-v0", num_envs=2, vectorization_mode="vector_entry_point")
    obs, _ = venv.reset(seed=0)
    assert obs.shape == (2, 22) and venv.unwrapped.num_envs == 2


def test_gymnasium_vector_wrappers_see_the_episodes():
    # RecordEpisodeStatistics reads metadata["autoreset_mode"] and the flags: its returns and
    # lengths must be the env's own counters, the step after the end not counted (NEXT_STEP)
    from gymnasium.wrappers.vector import NormalizeObservation, RecordEpisodeStatistics
    env = RecordEpisodeStatistics(ReachEnv(3, threads=1, max_episode_steps=4))
    inner = env.unwrapped
    env.reset(seed=0)
    for k in range(9):  # two episodes and the reset step between them
        obs, rew, term, trunc, info = env.step(np.full((3, 2), 0.2))
        if k == 3:
            first = inner.episode_return.copy()
    assert trunc.all() and list(env.length_queue) == [4] * 6
    assert np.array_equal(np.array(list(env.return_queue)[:3]), first)
    wrapped = NormalizeObservation(LiftEnv(2, threads=1))  # refuses SAME_STEP envs
    obs, _ = wrapped.reset(seed=0)
    assert obs.shape == (2, 22)
