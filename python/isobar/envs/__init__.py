"""Gymnasium environments over isobar sims (needs `pip install ./python[gym]`).

    from isobar.envs import LiftEnv
    env = LiftEnv(num_envs=256)            # 256 worlds in one Sim: a gymnasium.vector.VectorEnv
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

`SingleEnv(LiftEnv)` is the same task as a plain one-world `gymnasium.Env`. The tasks are also
registered with Gymnasium: `gymnasium.make("isobar/Reach-v0")` and
`gymnasium.make_vec("isobar/Lift-v0", num_envs=64, vectorization_mode="vector_entry_point")`.
"""
from .lift import LiftEnv
from .reach import ReachEnv
from .single import SingleEnv
from .vector import IsobarVectorEnv


def make_reach(**kwargs):
    """A one-world ReachEnv as a gymnasium.Env (the entry point of "isobar/Reach-v0")."""
    return SingleEnv(ReachEnv, **kwargs)


def make_lift(**kwargs):
    """A one-world LiftEnv as a gymnasium.Env (the entry point of "isobar/Lift-v0")."""
    return SingleEnv(LiftEnv, **kwargs)


def _register():
    from gymnasium.envs.registration import register, registry
    for name, single, vec in (("isobar/Reach-v0", make_reach, ReachEnv),
                              ("isobar/Lift-v0", make_lift, LiftEnv)):
        if name not in registry:
            register(id=name, entry_point=single, vector_entry_point=vec)


_register()

__all__ = ["IsobarVectorEnv", "ReachEnv", "LiftEnv", "SingleEnv", "make_reach", "make_lift"]
