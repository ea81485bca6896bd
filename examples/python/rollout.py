"""Run 256 lift worlds with random actions for one episode and count the lifted cubes."""
import numpy as np
from isobar.envs import LiftEnv

env = LiftEnv(num_envs=256, threads=2)           # 256 worlds of examples/pick.sdf in one sim
obs, info = env.reset(seed=0)
env.action_space.seed(0)                         # the random actions too: the same run every time
lifted = np.zeros(env.num_envs, bool)
for _ in range(env.max_episode_steps):           # 75 steps of 20 ms
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
    lifted |= info["is_success"]
print(f"{lifted.sum()} of {env.num_envs} random grips lifted the cube 5 cm; obs {obs.shape}")
