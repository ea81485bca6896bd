"""Seeded per-world domain randomisation: draw a parameter for every world, set it in one call."""
import numpy as np

from .errors import InvalidArgumentError


class Randomizer:
    """Draws per-world parameter values from uniform or log-uniform ranges with its own seeded
    generator (NumPy's PCG64), so a seed gives the same worlds on every run and machine.

        r = isobar.Randomizer(seed=7)
        r.uniform(sim, "geometry_friction", item=g, low=[0.3, 0.2], high=[1.0, 0.8])
        r.log_uniform(sim, "body_mass", item=b, low=0.5, high=2.0, worlds=mask)
    """

    def __init__(self, seed=0):
        self.rng = np.random.Generator(np.random.PCG64(seed))

    def _draw(self, sim, name, item, low, high, worlds, log):
        width = sim.param_width(name)
        lo = np.broadcast_to(np.asarray(low, dtype=np.float64), (width,))
        hi = np.broadcast_to(np.asarray(high, dtype=np.float64), (width,))
        if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))) or np.any(hi < lo):
            raise InvalidArgumentError(f"isobar.Randomizer: {name}: need finite low <= high, got {low!r}, {high!r}")
        if log and np.any(lo <= 0):
            raise InvalidArgumentError(f"isobar.Randomizer: {name}: a log-uniform range needs low > 0, got {low!r}")
        _, _, n = sim._select(worlds, "isobar.Randomizer")
        u = self.rng.random((n, width))
        vals = np.exp(np.log(lo) + u * (np.log(hi) - np.log(lo))) if log else lo + u * (hi - lo)
        sim.set_param(name, vals, item=item, worlds=worlds)
        return vals

    def uniform(self, sim, name, item=0, low=0.0, high=1.0, worlds=None):
        """Set parameter `name` of `item` in the selected worlds to values uniform in
        [low, high) (per column; low/high are scalars or one value per column). Returns them."""
        return self._draw(sim, name, item, low, high, worlds, False)

    def log_uniform(self, sim, name, item=0, low=1.0, high=10.0, worlds=None):
        """As uniform, with the logarithm uniform: for scales (masses, moduli, stiffnesses)."""
        return self._draw(sim, name, item, low, high, worlds, True)
