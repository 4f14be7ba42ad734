#!/usr/bin/env bash
# Compiles kernels/explore.cu with NVRTC for every combination of the
# kernel's switches, on a machine without a GPU: a typo in the CUDA source
# shows up here, before any device time is spent. NVRTC only compiles, so
# no GPU and no CUDA driver are needed.
#
# Usage: scripts/kernel_compile_check.sh [ARCH]   (default sm_90)
# The first run downloads NVIDIA's NVRTC wheel from PyPI (about 90 MB) into
# target/nvrtc/. Exit status 1 when a variant fails or warns.
set -euo pipefail
cd "$(dirname "$0")/.."
arch=${1:-sm_90}
dir=target/nvrtc
lib=$dir/nvidia/cuda_nvrtc/lib/libnvrtc.so.12
if [[ ! -f $lib ]]; then
    mkdir -p "$dir"
    python3 -m pip download --quiet --no-deps --dest "$dir" nvidia-cuda-nvrtc-cu12
    python3 -m zipfile -e "$dir"/nvidia_cuda_nvrtc_cu12-*.whl "$dir"
fi
python3 - "$lib" "$arch" <<'PY'
import ctypes, itertools, sys

nvrtc = ctypes.CDLL(sys.argv[1])
arch = sys.argv[2]
source = open("kernels/explore.cu", "rb").read()

def compile_with(defines):
    """NVRTC's result code and log for the source under `defines`."""
    program = ctypes.c_void_p()
    assert nvrtc.nvrtcCreateProgram(ctypes.byref(program), source, b"explore.cu", 0, None, None) == 0
    options = [f"-D{k}={v}".encode() for k, v in defines.items()]
    options += [f"--gpu-architecture={arch}".encode(), b"--std=c++17"]
    code = nvrtc.nvrtcCompileProgram(program, len(options), (ctypes.c_char_p * len(options))(*options))
    size = ctypes.c_size_t()
    nvrtc.nvrtcGetProgramLogSize(program, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetProgramLog(program, log)
    nvrtc.nvrtcDestroyProgram(ctypes.byref(program))
    return code, log.value.decode()

# The defines the host passes (src/engine/gpu/search.rs), at typical values.
base = dict(W=3, S=4, SPB=8, LINES=1, G=1, TRACE=1, CACHE=0, CLAIM=1, FRONTIER_BITS=0,
            SYNC_BUFFERS=0, MAX_OFFERS=1, READ_PATH=2, MAX_PROBES=64, WARPS=8)
switches = dict(CLAIM=[0, 1], FRONTIER_BITS=[0, 1], CACHE=[0, 32], G=[1, 8], READ_PATH=[0, 1, 2],
                TRACE=[0, 1])
variants = [dict(base, **dict(zip(switches, values))) for values in itertools.product(*switches.values())]
# The shared-memory sync buffers want one thread per process.
variants.append(dict(base, G=32, SYNC_BUFFERS=1, MAX_OFFERS=8))
failed = 0
for defines in variants:
    code, log = compile_with(defines)
    if code != 0 or "warning" in log:
        failed += 1
        print(f"{defines}: NVRTC result {code}\n{log}")
print(f"{len(variants)} variants for {arch}: {failed} failed or warned")
sys.exit(1 if failed else 0)
PY
