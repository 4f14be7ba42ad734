#!/usr/bin/env bash
# Fetches NVIDIA's NVRTC wheel from PyPI into target/nvrtc/ (about 90 MB,
# once) and prints the directory holding libnvrtc.so, for LD_LIBRARY_PATH:
# with it, `cargo test` compiles every kernel variant without a GPU.
#   export LD_LIBRARY_PATH=$(scripts/nvrtc.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=target/nvrtc
lib=$dir/nvidia/cuda_nvrtc/lib
if [[ ! -f $lib/libnvrtc.so.12 ]]; then
    mkdir -p "$dir"
    python3 -m pip download --quiet --no-deps --dest "$dir" nvidia-cuda-nvrtc-cu12 >&2
    python3 -m zipfile -e "$dir"/nvidia_cuda_nvrtc_cu12-*.whl "$dir"
fi
echo "$PWD/$lib"
