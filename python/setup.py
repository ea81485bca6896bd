"""Builds the C library with CMake and puts it inside the package (isobar/_lib/).

The binding is ctypes over libisobar.so: no compiled Python extension. Environment:
  ISOBAR_CMAKE_ARGS  extra arguments for CMake's configure step (e.g. "-DISO_WITH_CUDA=OFF")
  ISOBAR_BUILD_DIR   where CMake builds (default: build/ under this folder)
The CUDA module libisobar_cuda.so is built and packaged beside the library when nvcc is found,
as the library looks for it there. The example scenes the Gymnasium tasks run (isobar.envs) are
copied into isobar/envs/models/, so an installed package finds them without the repository.
"""
import os
import shlex
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ENV_SCENES = ("arm_pd.urdf", "pick.sdf")  # the scenes of isobar.envs' tasks


class BuildWithCMake(build_py):
    """Configure and build the library's shared targets, then copy them into the package."""

    def run(self):
        build = os.environ.get("ISOBAR_BUILD_DIR") or os.path.join(HERE, "build", "cmake")
        args = ["-DCMAKE_BUILD_TYPE=Release", "-DISO_TESTS=OFF"]
        args += shlex.split(os.environ.get("ISOBAR_CMAKE_ARGS", ""))
        subprocess.check_call(["cmake", "-S", ROOT, "-B", build] + args)
        jobs = str(os.cpu_count() or 2)
        subprocess.check_call(["cmake", "--build", build, "--target", "isobar_shared", "-j", jobs])
        native = os.path.join(HERE, "isobar", "_lib")
        os.makedirs(native, exist_ok=True)
        for old in os.listdir(native):
            if old.endswith(".so"):
                os.remove(os.path.join(native, old))
        shutil.copy2(os.path.join(build, "libisobar.so"), native)
        cuda = os.path.join(build, "libisobar_cuda.so")
        if os.path.exists(cuda):
            shutil.copy2(cuda, native)
        scenes = os.path.join(HERE, "isobar", "envs", "models")
        os.makedirs(scenes, exist_ok=True)
        for name in ENV_SCENES:
            shutil.copy2(os.path.join(ROOT, "examples", name), scenes)
        super().run()


class BinaryDistribution(Distribution):
    """The wheel carries a shared library: it is platform-specific."""

    def has_ext_modules(self):
        return True


if sys.version_info < (3, 10):
    sys.exit("isobar needs Python 3.10 or newer")

setup(cmdclass={"build_py": BuildWithCMake}, distclass=BinaryDistribution)
