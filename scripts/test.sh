#!/usr/bin/env bash
# Build isobar with warnings as errors (CUDA backend included when nvcc is found) and run the
# whole test suite; then build it again with AddressSanitizer and UndefinedBehaviorSanitizer
# and run the suite once more, the CUDA backend emulated on the host (ISO_CUDA_EMULATE). Set
# ISO_REQUIRE_CUDA=1 to fail when the CUDA backend cannot be built (CI does). Set
# ISO_SKIP_SANITIZE=1 to skip the second pass. Last, when clang is installed, each libFuzzer
# harness of fuzz/ runs on ISO_FUZZ_RUNS inputs from seed ISO_FUZZ_SEED (defaults 20000 and 1;
# ISO_FUZZ_SECONDS=0 skips them) under
# ASan+UBSan (fuzz/run.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
jobs=$(nproc 2>/dev/null || echo 2)
python3 scripts/check_layout.py  # layout rules of DESIGN.md, before anything is built

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DISO_WERROR=ON \
  -DISO_REQUIRE_CUDA="${ISO_REQUIRE_CUDA:-0}" >build-configure.log
grep "isobar:" build-configure.log
cmake --build build -j "$jobs"
(cd build && ctest --output-on-failure -j "$jobs")

if [[ "${ISO_SKIP_SANITIZE:-0}" != 1 ]]; then
  # The CUDA runtime and ASan do not mix well, so this pass builds the CUDA backend on the host
  # shim (ISO_CUDA_EMULATE): the suite's CUDA-vs-CPU tests run the launch layer under ASan+UBSan.
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DISO_WERROR=ON -DISO_SANITIZE=ON \
    -DISO_CUDA_EMULATE=ON >/dev/null
  cmake --build build-asan -j "$jobs"
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --output-on-failure -j "$jobs")
fi

# The Python package, installed the way a user installs it (pip builds the library with CMake)
# into a fresh virtual environment, and its pytest suite. The CUDA module is left out of this
# build: the passes above compiled and tested it. ISO_SKIP_PYTHON=1 skips this part.
if [[ "${ISO_SKIP_PYTHON:-0}" != 1 ]]; then
  python3 -m venv build-python/venv
  ISOBAR_BUILD_DIR="$PWD/build-python/cmake" ISOBAR_CMAKE_ARGS="-DISO_WITH_CUDA=OFF" \
    build-python/venv/bin/pip install -q "./python[test]"
  build-python/venv/bin/python -m pytest -q python/tests
  # The arrays of the CUDA backend (DLPack objects) against the emulated device: the library and
  # its CUDA module built with ISO_CUDA_EMULATE, loaded in place of the installed library.
  cmake -S . -B build-python/emu -DCMAKE_BUILD_TYPE=Release -DISO_TESTS=OFF -DISO_CUDA_EMULATE=ON >/dev/null
  cmake --build build-python/emu -j "$jobs" --target isobar_shared isobar_cuda
  ISOBAR_LIBRARY="$PWD/build-python/emu/libisobar.so" build-python/venv/bin/python -m pytest -q \
    python/tests/test_cuda_arrays.py
fi

fuzz_seconds=${ISO_FUZZ_SECONDS:-15}
if [[ "$fuzz_seconds" != 0 ]]; then
  if command -v clang >/dev/null 2>&1; then
    # a fixed seed and a fixed number of inputs: the same inputs on every machine (reproducible)
    ISO_FUZZ_SEED=${ISO_FUZZ_SEED:-1} ISO_FUZZ_RUNS=${ISO_FUZZ_RUNS:-20000} bash fuzz/run.sh "$fuzz_seconds"
  else
    echo "test: clang not found, the fuzz harnesses did not run (scripts/setup.sh installs it)"
  fi
fi
