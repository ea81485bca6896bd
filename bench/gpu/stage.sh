#!/usr/bin/env bash
# Stages a CUDA build for a bare GPU machine: the isobar tool, the library, the CUDA module, the
# test and bench executables, and every shared library they load that is neither glibc's nor the
# CUDA toolkit's (Criterion, libxml2 and ICU, LAPACK/BLAS, cJSON, OpenMP), so the stage runs
# with LD_LIBRARY_PATH=STAGE/lib on a machine that has only a driver and a CUDA runtime.
# ALT_BUILD=DIR adds DIR's CUDA module as libisobar_cuda_alt.so (say a build with ISO_PARITY=OFF).
# STAGE-carry/stage.tar.xz is the same, packed to travel; bench/gpu/device_check.sh unpacks
# it there and runs from it. Usage: bash bench/gpu/stage.sh BUILD [STAGE]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:?build dir (a CUDA build with tests)}
stage=${2:-build-gpustage}
rm -rf "$stage" && mkdir -p "$stage/tests" "$stage/lib"
cp "$build/isobar" "$build/libisobar.so" "$build/libisobar_cuda.so" "$stage/"
# ALT_BUILD: another build whose CUDA module travels too, to compare with (ISO_PARITY the other way)
[[ -n ${ALT_BUILD:-} ]] && cp "$ALT_BUILD/libisobar_cuda.so" "$stage/libisobar_cuda_alt.so"
# the test executables whose module touches the CUDA backend; the rest are the CPU's, run by CI
for src in $(grep -il cuda tests/test_*.c); do
  t=$build/$(basename "$src" .c)
  [[ -x $t ]] && cp "$t" "$stage/tests/"
done
strip --strip-debug "$stage"/tests/* "$stage"/isobar "$stage"/*.so
# glibc, the C++ runtime and the CUDA libraries come from the machine; the rest travels
skip='^(linux-vdso|ld-linux|libc\.|libm\.|libdl\.|libpthread\.|librt\.|libresolv\.|libutil\.|libnsl\.|libstdc\+\+|libgcc_s|libcud|libcusolver|libcublas|libcusparse|libnvJitLink)'
for f in "$stage"/isobar "$stage"/*.so "$stage"/tests/*; do ldd "$f"; done |
  awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u | while read -r name path; do
    [[ $name =~ $skip ]] || cp -L "$path" "$stage/lib/$name"
  done
# one solid archive: the executables share most of their code, which xz stores once
mkdir -p "$stage-carry"
tar -C "$(dirname "$stage")" -cf - "$(basename "$stage")" | xz -6 -T2 >"$stage-carry/stage.tar.xz"
du -sh "$stage" "$stage/lib" "$stage-carry/stage.tar.xz"
