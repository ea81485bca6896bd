"""Vectorised Gymnasium environments over one isobar Sim (needs `pip install isobar[gym]`)."""
