"""One world of a vector task as a plain `gymnasium.Env` (for code and checkers that want one)."""
import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode


class SingleEnv(gym.Env):
    """A one-world `gymnasium.Env` over an IsobarVectorEnv task class.

        env = SingleEnv(ReachEnv, max_episode_steps=50)
        gymnasium.utils.env_checker.check_env(env)

    The wrapped vector env (`self.vec`, one world, autoreset disabled) shares this env's
    random generator, so `reset(seed=s)` draws the same initial state as the vector env
    reset with the same seed. Observations are fresh arrays; rewards floats; infos the
    vector env's with each entry taken at world 0.
    """

    metadata = {"render_modes": []}

    def __init__(self, vec_env_cls, **kwargs):
        """vec_env_cls: the task (ReachEnv, LiftEnv, ...); kwargs: its keyword arguments."""
        kwargs = dict(kwargs, autoreset_mode=AutoresetMode.DISABLED)
        self.vec = vec_env_cls(1, **kwargs)
        self.observation_space = self.vec.single_observation_space
        self.action_space = self.vec.single_action_space

    def reset(self, *, seed=None, options=None):
        """Reset the world; seed (int) seeds the generator of its initial state."""
        super().reset(seed=seed)
        self.vec.np_random = self.np_random
        obs, _ = self.vec.reset(options=options)
        return obs[0], {}

    def step(self, action):
        """Step the world by one environment step; (obs, reward, terminated, truncated, info)."""
        obs, rew, term, trunc, info = self.vec.step(np.asarray(action, dtype=np.float64)[None, :])
        one = {k: v[0] for k, v in info.items() if isinstance(v, np.ndarray) and not k.startswith("_")}
        return obs[0], float(rew[0]), bool(term[0]), bool(trunc[0]), one

    def close(self):
        """Release the world's sim."""
        self.vec.close()
