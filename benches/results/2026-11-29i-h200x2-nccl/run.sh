#!/usr/bin/env bash
# The first call on nvidia-h200-x2 (two H200s of one host), with the
# session's last 256 s of device time: the partitioned search's GPU tests
# with NCCL on the machine's two GPUs, then AutoFlight-PT-06a
# (1,371,919,681 states) on 2 GPUs and on 1. NVLink multicast stays off
# (gpu_test.sh and this script set NCCL_NVLS_ENABLE=0). Carried: .device/g
# (xz'd warpcheck and test binary of f37ea28, three MCC models and their
# oracle rows).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin
exec > >(tee "$out/run.txt") 2>&1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi -L; nvidia-smi topo -m 2>&1 | head -4
for f in warpcheck tests; do xz -dc .device/g/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
cp /tmp/bin/tests .device/tests
nccl=$(scripts/nccl.sh) && export LD_LIBRARY_PATH="$nccl${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "NCCL from $nccl"
WARPCHECK_MCC=.device/g/mcc WARPCHECK_MCC_MAX=10000000 WARPCHECK_BIN=/tmp/bin/warpcheck \
    timeout 90 bash scripts/gpu_test.sh gpu_partitioned:: 2>&1 | grep -E "^test |test result|panicked|assert|SKIPPED" | head -40
for gpus in 2 1; do
    echo "== AutoFlight-PT-06a --gpus $gpus"
    start=$(date +%s%N)
    timeout 45 /tmp/bin/warpcheck -v check .device/g/mcc/AutoFlight-PT-06a --engine gpu --all --gpus $gpus 2>&1 | tail -12
    echo "wall $(( ($(date +%s%N) - start) / 1000000 )) ms"
done
