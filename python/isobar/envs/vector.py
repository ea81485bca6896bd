"""A Gymnasium vector environment over one isobar Sim: each sub-environment is a world.

Stepping N sub-environments is one call into the library per simulated step for all N worlds;
actions go straight into the sim's input arrays and observations are read from its state arrays,
so the Python work per environment step is a few whole-array NumPy operations whatever N is.

Episode ends are handled by a masked `Sim.reset` of the finished worlds (worlds outside the
mask are not touched). Three autoreset modes (Gymnasium >= 1.0, `metadata["autoreset_mode"]`):

  NEXT_STEP (default, Gymnasium's own default and the one its vector wrappers expect): the step
      after a world reports terminated or truncated resets it and returns its first
      observation, with reward 0 and both flags False; that step's action is ignored for it.
  SAME_STEP: a finished world is reset within the step that ends its episode; the returned
      observation is the new episode's first, the last one is in infos["final_obs"] (an
      object array, None for the worlds that did not finish; mask infos["_final_obs"]).
  DISABLED: nothing is reset automatically; call reset(options={"reset_mask": done}).

In NEXT_STEP mode the worlds due for a reset are simulated along with the others and then
reset (one batched step has no way to leave worlds out): the wasted step costs the same as a
real one and leaves no trace, as the reset overwrites the whole world.
"""
import os

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..errors import InvalidArgumentError
from ..model import Model
from ..sim import WORLD_FROZEN, Sim

_HERE = os.path.dirname(os.path.abspath(__file__))


def model_path(name):
    """Path of an example scene the tasks use: the repository's examples/ folder when the
    package runs from the repository, else the copy installed with the package
    (isobar/envs/models/, put there by setup.py)."""
    repo = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(_HERE))), "examples", name)
    if os.path.exists(repo):
        return repo
    packaged = os.path.join(_HERE, "models", name)
    if os.path.exists(packaged):
        return packaged
    raise FileNotFoundError(f"isobar.envs: scene {name!r} is neither at {repo} nor at {packaged}")


class IsobarVectorEnv(VectorEnv):
    """Base class of the tasks: `num_envs` worlds of one model in one Sim.

    Subclasses set `scene` (a file name under examples/), `default_frame_skip`,
    `default_max_episode_steps`, and implement
      _make_spaces()            -> (single observation space, single action space)
      _apply_action(actions)    write a validated (num_envs, action_dim) float64 batch into
                                the sim's inputs
      _observe()                -> a new (num_envs, obs_dim) array of the current observations
      _evaluate(actions, obs)   -> (rewards float64 (num_envs,), terminated bool (num_envs,),
                                info dict of (num_envs,) arrays)
      _reset_worlds(mask, rng)  draw initial states for the worlds of `mask` (in world order,
                                from `rng` only) and reset them with `self.sim.reset`

    Attributes besides Gymnasium's: `sim` (the Sim), `model`, `frame_skip` (sim steps per
    environment step), `max_episode_steps` (truncation horizon), and per-world counters
    `episode_step` (steps in the current episode), `episode_return` (its undiscounted
    return so far) and `episode_count` (episodes finished).
    """

    scene = None
    default_frame_skip = 1
    default_max_episode_steps = 100
    default_time_step = None
    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs=1, *, frame_skip=None, max_episode_steps=None, threads=0,
                 time_step=None, autoreset_mode=AutoresetMode.NEXT_STEP, scene_path=None,
                 **sim_options):
        """Load the task's scene and create a Sim of `num_envs` worlds.

        frame_skip: simulated steps per environment step (default: the task's).
        max_episode_steps: environment steps before truncation (default: the task's).
        threads: the Sim's CPU threads (0: OpenMP's default). time_step: the model's time
        step in seconds (default: the task's, else the scene file's). autoreset_mode: an
        AutoresetMode or its string value. scene_path: another scene file for the task (it
        must have the bodies, joints and actuators the task names). sim_options: further
        keyword arguments of `isobar.Sim` (backend "cpu" only: the tasks read NumPy views).
        """
        if not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, bool) or num_envs < 1:
            raise InvalidArgumentError(f"{type(self).__name__}: num_envs must be an int >= 1, got {num_envs!r}")
        mode = autoreset_mode if isinstance(autoreset_mode, AutoresetMode) else AutoresetMode(autoreset_mode)
        self.frame_skip = int(frame_skip if frame_skip is not None else self.default_frame_skip)
        self.max_episode_steps = int(max_episode_steps if max_episode_steps is not None
                                     else self.default_max_episode_steps)
        if self.frame_skip < 1 or self.max_episode_steps < 1:
            raise InvalidArgumentError(f"{type(self).__name__}: frame_skip and max_episode_steps must be >= 1")
        if sim_options.get("backend", "cpu") != "cpu":
            raise InvalidArgumentError(f"{type(self).__name__}: the environments run on the CPU backend")
        ts = time_step if time_step is not None else self.default_time_step
        self.model = Model.load(scene_path or model_path(self.scene), time_step=ts)
        self.sim = Sim(self.model, worlds=int(num_envs), threads=threads, **sim_options)
        self.num_envs = int(num_envs)
        self.q0 = self.sim.q[0].copy()
        """The model's initial generalized positions (nq,): the base of every reset state."""
        self.metadata = dict(type(self).metadata, autoreset_mode=mode)
        self.autoreset_mode = mode

        self.single_observation_space, self.single_action_space = self._make_spaces()
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._action_dim = int(self.single_action_space.shape[0])
        self._obs_low = self.single_observation_space.low
        self._obs_high = self.single_observation_space.high

        n = self.num_envs
        self.episode_step = np.zeros(n, np.int64)
        self.episode_return = np.zeros(n, np.float64)
        self.episode_count = np.zeros(n, np.int64)
        self._autoreset = np.zeros(n, np.bool_)  # worlds the next step resets (NEXT_STEP)
        self._all = np.ones(n, np.bool_)

    # ---- the task's part -------------------------------------------------------------------
    def _make_spaces(self):
        raise NotImplementedError

    def _apply_action(self, actions):
        raise NotImplementedError

    def _observe(self):
        raise NotImplementedError

    def _evaluate(self, actions, obs):
        raise NotImplementedError

    def _reset_worlds(self, mask, rng):
        raise NotImplementedError

    # ---- helpers for tasks -----------------------------------------------------------------
    def _finish_obs(self, obs):
        """Clip observations into the observation space's finite bounds, in place, as float32.

        The bounds are physical ranges generous enough that a working episode never meets
        them; a world running away (a fault, a thrown cube) is clipped rather than handing
        the learner values outside the declared space."""
        np.clip(obs, self._obs_low, self._obs_high, out=obs)
        return obs

    def _check_actions(self, actions):
        """The batch as a (num_envs, action_dim) float64 array clipped to [-1, 1]; ValueError
        for a wrong shape or a value that is not finite (it would enter the sim's inputs)."""
        a = np.asarray(actions, dtype=np.float64)
        if a.shape != (self.num_envs, self._action_dim):
            raise ValueError(f"{type(self).__name__}.step: actions must have shape "
                             f"({self.num_envs}, {self._action_dim}), got {a.shape}")
        if not np.isfinite(a).all():
            raise ValueError(f"{type(self).__name__}.step: actions must be finite")
        return np.clip(a, -1.0, 1.0)

    # ---- Gymnasium API ---------------------------------------------------------------------
    def reset(self, *, seed=None, options=None):
        """Reset worlds and return (observations of every world, infos).

        seed: an int seeds the generator the initial states are drawn from (None keeps the
        current one). options: {"reset_mask": bool array (num_envs,)} resets only those
        worlds (Gymnasium's convention); the other worlds are left bitwise as they were and
        their current observation is returned. Without a mask every world is reset.
        """
        super().reset(seed=seed)
        mask = self._all
        if options and options.get("reset_mask") is not None:
            mask = np.asarray(options["reset_mask"])
            if mask.dtype != np.bool_ or mask.shape != (self.num_envs,):
                raise ValueError(f"{type(self).__name__}.reset: options['reset_mask'] must be a bool "
                                 f"array of shape ({self.num_envs},), got {mask.dtype} {mask.shape}")
        if mask.any():
            self._reset_worlds(mask, self.np_random)
        self.episode_step[mask] = 0
        self.episode_return[mask] = 0.0
        self._autoreset[mask] = False
        return self._observe(), {}

    def step(self, actions):
        """Apply a batch of actions in [-1, 1] (num_envs, action_dim), advance every world by
        `frame_skip` simulated steps and return (obs, rewards, terminations, truncations,
        infos). A world whose sim faulted (ISO_WORLD_FROZEN) is truncated, flagged in
        infos["fault"]. When an episode ends, infos["episode_return"] and
        infos["episode_length"] hold it (masks "_episode_return", "_episode_length")."""
        a = self._check_actions(actions)
        self._apply_action(a)
        self.sim.step(self.frame_skip)
        mode = self.autoreset_mode
        restart = self._autoreset if mode == AutoresetMode.NEXT_STEP else None
        if restart is not None and restart.any():
            self._reset_worlds(restart, self.np_random)
        obs = self._observe()
        rewards, terminated, info = self._evaluate(a, obs)
        fault = (self.sim.status[:, 0] & WORLD_FROZEN) != 0
        self.episode_step += 1
        truncated = ((self.episode_step >= self.max_episode_steps) | fault) & ~terminated
        if restart is not None and restart.any():
            rewards[restart] = 0.0
            terminated[restart] = False
            truncated[restart] = False
            self.episode_step[restart] = 0
            self.episode_return[restart] = 0.0
        self.episode_return += rewards
        info["fault"] = fault
        done = terminated | truncated
        if done.any():
            info["episode_return"] = np.where(done, self.episode_return, 0.0)
            info["_episode_return"] = done.copy()
            info["episode_length"] = np.where(done, self.episode_step, 0)
            info["_episode_length"] = done.copy()
            self.episode_count += done
            if mode == AutoresetMode.SAME_STEP:
                final = np.full(self.num_envs, None, dtype=object)
                for i in np.flatnonzero(done):
                    final[i] = obs[i].copy()
                info["final_obs"] = final
                info["_final_obs"] = done.copy()
                info["final_info"] = {k: v.copy() for k, v in info.items()
                                      if isinstance(v, np.ndarray) and not k.startswith("_")}
                info["_final_info"] = done.copy()
                self._reset_worlds(done, self.np_random)
                obs[done] = self._observe()[done]
                self.episode_step[done] = 0
                self.episode_return[done] = 0.0
        if mode == AutoresetMode.NEXT_STEP:
            self._autoreset = done
        return obs, rewards, terminated, truncated, info

    def close_extras(self, **kwargs):
        """Release the sim and the model."""
        if getattr(self, "sim", None) is not None:
            self.sim.close()
            self.sim = None
        if getattr(self, "model", None) is not None:
            self.model.close()
            self.model = None


def box(low, high):
    """A float32 Box of the given bounds (lists or arrays of one length)."""
    return spaces.Box(np.asarray(low, np.float32), np.asarray(high, np.float32), dtype=np.float32)
