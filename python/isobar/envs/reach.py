"""Reaching: the two-link PD arm of examples/arm_pd.urdf brings its fingertip to a target point.

The arm hangs from a base 1 m above the ground and moves in the x–z plane (both joints about y;
at q = 0 it points along +x, and a positive angle turns it down, toward −z). Each link is 0.5 m:
the fingertip is the fore link's origin plus 0.5 m along the link's x axis.
"""
import numpy as np

from .vector import IsobarVectorEnv, box

LINK = 0.5  # fore link length (m): the elbow joint sits 0.5 m out on the upper link as well


class ReachEnv(IsobarVectorEnv):
    """Bring the arm's fingertip to a target drawn per world on reset.

    Action (2,) in [-1, 1]: the shoulder and elbow position targets of the PD actuators,
    mapped linearly onto each joint's limits (±3 rad).
    Observation (10,) float32: q (2, rad), v (2, rad/s), target (x, z) and fingertip (x, z)
    in the world (m), fingertip − target (2, m).
    Reward: −‖fingertip − target‖ − action_cost·‖action‖². No termination; truncation after
    `max_episode_steps` (default 100 steps of 10 ms: 1 s). infos["distance"] and
    infos["is_success"] (within `success_distance`) per world.
    Reset: joint angles uniform within ±0.1 rad of the model's start (straight out), at rest;
    target at a radius uniform in [0.25, 0.95] m from the shoulder and a direction uniform
    in ±2.5 rad about +x in the arm's plane (all reachable inside the joint limits).
    """

    scene = "arm_pd.urdf"
    default_frame_skip = 10
    default_max_episode_steps = 100

    def __init__(self, num_envs=1, *, action_cost=0.01, success_distance=0.05, **kwargs):
        """num_envs worlds; action_cost weighs ‖action‖² in the reward; success_distance (m)
        sets infos["is_success"]. Other keywords: IsobarVectorEnv's."""
        self.action_cost = float(action_cost)
        self.success_distance = float(success_distance)
        super().__init__(num_envs, **kwargs)
        m = self.model
        self._act_cols = [m.actuator("shoulder"), m.actuator("elbow")]
        self._qcols = [m.joint_slices("shoulder")[0].start, m.joint_slices("elbow")[0].start]
        self._vcols = [m.joint_slices("shoulder")[1].start, m.joint_slices("elbow")[1].start]
        lim = np.array([self.sim.get_param("dof_limits", item=c)[0] for c in self._vcols])
        self._mid = (lim[:, 0] + lim[:, 1]) / 2
        self._half = (lim[:, 1] - lim[:, 0]) / 2
        self._fore = m.body("fore")
        self._shoulder = np.array([0.0, 1.0])  # the base's (x, z): the URDF's base_weld origin
        self.target = np.zeros((self.num_envs, 2))
        """Per-world target points (num_envs, 2): x, z in the world (m)."""

    def _make_spaces(self):
        qmax, vmax, pmax = 4.0, 50.0, 2.5
        hi = [qmax] * 2 + [vmax] * 2 + [pmax] * 6
        return box([-h for h in hi], hi), box([-1.0] * 2, [1.0] * 2)

    def _apply_action(self, actions):
        tp = self.sim.target_position
        if self._act_cols == [0, 1] and tp.shape[1] == 2:
            np.multiply(actions, self._half, out=tp)
            tp += self._mid
        else:
            tp[:, self._act_cols] = self._mid + self._half * actions

    def fingertip(self):
        """Fingertip positions (num_envs, 2): x, z in the world (m), from the fore link's pose."""
        pose = self.sim.body_poses()[:, self._fore]
        w, x, y, z = pose[:, 3], pose[:, 4], pose[:, 5], pose[:, 6]
        # the rotation's first column (the link's x axis); only its x and z parts are needed
        ax = 1.0 - 2.0 * (y * y + z * z)
        az = 2.0 * (x * z - w * y)
        return np.stack([pose[:, 0] + LINK * ax, pose[:, 2] + LINK * az], axis=1)

    def _observe(self):
        obs = np.empty((self.num_envs, 10), np.float32)
        obs[:, 0:2] = self.sim.q[:, self._qcols]
        obs[:, 2:4] = self.sim.v[:, self._vcols]
        tip = self.fingertip()
        obs[:, 4:6] = self.target
        obs[:, 6:8] = tip
        obs[:, 8:10] = tip - self.target
        self._tip = tip
        return self._finish_obs(obs)

    def _evaluate(self, actions, obs):
        dist = np.sqrt(np.sum((self._tip - self.target) ** 2, axis=1))
        rewards = -dist - self.action_cost * np.sum(actions * actions, axis=1)
        terminated = np.zeros(self.num_envs, np.bool_)
        return rewards, terminated, {"distance": dist, "is_success": dist < self.success_distance}

    def _reset_worlds(self, mask, rng):
        n = int(mask.sum())
        q = np.repeat(self.q0[None, :], n, axis=0)
        q[:, self._qcols] += rng.uniform(-0.1, 0.1, (n, 2))
        r = rng.uniform(0.25, 0.95, n)
        phi = rng.uniform(-2.5, 2.5, n)
        self.target[mask] = self._shoulder + np.stack([r * np.cos(phi), -r * np.sin(phi)], axis=1)
        self.sim.reset(mask, q=q, v=np.zeros(self.model.nv))
