# Sourced by the scripts and the README's commands: put nvcc on PATH when the CUDA toolkit sits
# in its usual place. POSIX sh, so `. scripts/env.sh` works from any shell.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  PATH="/usr/local/cuda/bin:$PATH"
  export PATH
fi
