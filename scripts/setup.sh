#!/usr/bin/env bash
# Install what isobar needs to build, test and plot on a fresh Debian (bookworm) machine.
# Idempotent: packages already present are not touched. The CUDA toolkit is not installed
# here: when nvcc is on PATH (or in /usr/local/cuda/bin) the CUDA backend is built too.
set -euo pipefail

# clang, its runtime libraries (libFuzzer, sanitizers) and LLVM's OpenMP: the fuzz harnesses
# (fuzz/run.sh).
need=(cmake make gcc g++ pkg-config libcriterion-dev liblapack-dev libxml2-dev libcjson-dev python3 python3-matplotlib
      clang libclang-rt-14-dev libomp-dev)
missing=()
for p in "${need[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "setup: dependencies present"
