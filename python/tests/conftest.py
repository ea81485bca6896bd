"""Shared fixtures: paths of the repository's example scenes."""
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def example(name):
    """Path of examples/<name> in the repository."""
    return os.path.join(ROOT, "examples", name)


@pytest.fixture
def arm():
    import isobar
    return isobar.Model.load(example("arm_pd.urdf"))
