"""Lifting: the parallel gripper of examples/pick.sdf closes on a compliant 6 cm cube and lifts it.

The gripper is a carriage on a vertical prismatic joint "lift" (limits −0.05 to 0.3 m) carrying
two fingers on prismatic joints "left" and "right" (0 to 0.04 m, closing toward the cube as q
grows; open at 0, 2 cm from the cube's faces). Each joint has a PD actuator with an effort limit
(the fingers' 8 N sets the grip). The cube (0.1 kg, hydroelastic modulus 1e5 Pa, friction 1)
starts on the ground between the fingers.

The task runs the scene at a 4 ms time step instead of the file's 1 ms: over the file's
reference run (targets lift 0.1, fingers 0.04 held for 1.5 s) the cube ends within 0.6 mm of
the 1 ms run's height (0.1135 m against 0.1142 m) for a quarter of the steps.
"""
import numpy as np

from .vector import IsobarVectorEnv, box

FINGER_PAD = 0.12  # the finger boxes' centres sit 0.12 m below the finger bodies' origins
TOUCH_SCALE = 1e4  # Pa per unit of the tactile observation: a firm 8 N grip reads about 0.3
TOUCH_MAX = 10.0   # the observation's bound: 1e5 Pa, above any pressure of a working grip


class LiftEnv(IsobarVectorEnv):
    """Grip the cube and raise it.

    Action (3,) in [-1, 1]: the position targets of the lift, left and right actuators, each
    mapped linearly onto its joint's limits.
    Observation (22,) float32: joint q (3, m) and v (3, m/s) of lift, left, right; the cube's
    position (3, m), orientation quaternion w x y z (4), linear and angular velocity (3 + 3,
    world frame); the cube's position relative to the gripper's centre (the midpoint of the
    finger pads) (3, m).
    Reward: the cube's height gain over its start in units of `lift_height`, clipped to
    [−1, 2], minus 0.5 per 3 cm of horizontal offset between cube and gripper centre (keeps
    the cube between the fingers). Success (infos["is_success"]): the cube at least
    `lift_height` (default 5 cm) above its start. Termination: the cube leaves the gripper
    (horizontal offset above 10 cm). Truncation after `max_episode_steps` (default 75 steps of
    20 ms: 1.5 s). infos["height"]: the height gain (m).
    With tactile=True the observation also holds the two fingers' tactile pads (pick.sdf's
    `<isobar:tactile_pad>`s, 8 × 20 taxels each at 5 mm on the inner faces): each taxel's
    pressure over TOUCH_SCALE (1e4 Pa), left pad then right, clipped to [0, TOUCH_MAX] —
    what the contact solver pressed on the finger, sampled from its pressure patches.
    Reset: the cube's x and y jittered uniformly by ±5 mm and ±1 cm (its free-body q), the
    gripper open at its start, everything at rest.
    """

    scene = "pick.sdf"
    default_frame_skip = 5
    default_max_episode_steps = 75
    default_time_step = 0.004

    def __init__(self, num_envs=1, *, lift_height=0.05, jitter=(0.005, 0.01), tactile=False, **kwargs):
        """num_envs worlds; lift_height (m): the success height and the reward's unit; jitter:
        the half-ranges (m) of the cube's start in x and y; tactile: add the fingers' taxel
        pressures to the observation. Other keywords: IsobarVectorEnv's."""
        self.tactile = bool(tactile)
        self.lift_height = float(lift_height)
        self.jitter = np.asarray(jitter, np.float64)
        super().__init__(num_envs, **kwargs)
        m = self.model
        joints = ("lift", "left", "right")
        self._act_cols = [m.actuator(j) for j in joints]
        self._qcols = [m.joint_slices(j)[0].start for j in joints]
        self._vcols = [m.joint_slices(j)[1].start for j in joints]
        lim = np.array([self.sim.get_param("dof_limits", item=c)[0] for c in self._vcols])
        self._mid = (lim[:, 0] + lim[:, 1]) / 2
        self._half = (lim[:, 1] - lim[:, 0]) / 2
        self._cube = m.body("cube")
        self._fingers = [m.body("left_finger"), m.body("right_finger")]
        self._cube_q = m.body_slices("cube")[0]  # qw qx qy qz px py pz of the free body
        self.start_height = np.full(self.num_envs, self.q0[self._cube_q][6])
        """Per-world height of the cube at the episode's start (num_envs,), m."""

    def _make_spaces(self):
        # physical ranges no working episode meets: joint travel under 0.5 m, speeds under
        # 10 m/s and 100 rad/s, positions within 1 m of the origin; a unit quaternion
        hi = [0.5] * 3 + [10.0] * 3 + [1.0] * 3 + [1.0] * 4 + [10.0] * 3 + [100.0] * 3 + [1.0] * 3
        pads = range(self.model.tactile_pad_count) if self.tactile else ()
        self._pads = [(p, self.sim.taxel_pressures(p).shape[1]) for p in pads]
        self._ntaxel = sum(n for _, n in self._pads)
        lo = [-h for h in hi] + [0.0] * self._ntaxel
        hi = hi + [TOUCH_MAX] * self._ntaxel
        return box(lo, hi), box([-1.0] * 3, [1.0] * 3)

    def _apply_action(self, actions):
        tp = self.sim.target_position
        if self._act_cols == [0, 1, 2] and tp.shape[1] == 3:
            np.multiply(actions, self._half, out=tp)
            tp += self._mid
        else:
            tp[:, self._act_cols] = self._mid + self._half * actions

    def _observe(self):
        poses = self.sim.body_poses()
        vel = self.sim.body_velocities()[:, self._cube]
        cube = poses[:, self._cube]
        centre = 0.5 * (poses[:, self._fingers[0], :3] + poses[:, self._fingers[1], :3])
        centre[:, 2] -= FINGER_PAD
        obs = np.empty((self.num_envs, 22 + self._ntaxel), np.float32)
        obs[:, 0:3] = self.sim.q[:, self._qcols]
        obs[:, 3:6] = self.sim.v[:, self._vcols]
        obs[:, 6:9] = cube[:, 0:3]
        obs[:, 9:13] = cube[:, 3:7]
        obs[:, 13:16] = vel[:, 3:6]
        obs[:, 16:19] = vel[:, 0:3]
        rel = cube[:, 0:3] - centre
        obs[:, 19:22] = rel
        col = 22
        for p, n in self._pads:  # the pads' views: one copy, into the observation
            np.multiply(self.sim.taxel_pressures(p), 1.0 / TOUCH_SCALE, out=obs[:, col:col + n], casting="unsafe")
            col += n
        self._height = cube[:, 2] - self.start_height
        self._offset = np.sqrt(rel[:, 0] ** 2 + rel[:, 1] ** 2)
        return self._finish_obs(obs)

    def _evaluate(self, actions, obs):
        gain = self._height
        rewards = np.clip(gain / self.lift_height, -1.0, 2.0) - 0.5 * self._offset / 0.03
        terminated = self._offset > 0.1
        return rewards, terminated, {"height": gain.copy(), "is_success": gain >= self.lift_height}

    def _reset_worlds(self, mask, rng):
        n = int(mask.sum())
        q = np.repeat(self.q0[None, :], n, axis=0)
        px = self._cube_q.start + 4  # the free body's position follows its quaternion
        q[:, px:px + 2] += rng.uniform(-1.0, 1.0, (n, 2)) * self.jitter
        self.start_height[mask] = q[:, px + 2]
        self.sim.reset(mask, q=q, v=np.zeros(self.model.nv))
