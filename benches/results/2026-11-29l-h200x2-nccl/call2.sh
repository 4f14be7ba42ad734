#!/usr/bin/env bash
# Call 2 on nvidia-h200-x2: home-bucket prefetch (this build's kernels)
# against the kernels before it (.device/s15/k-old, swapped in by
# WARPCHECK_KERNEL_DIR), alternately, on 1 and 2 GPUs; Parking-PT-208
# without traces on 1 and 2 GPUs; then the partitioned search's GPU tests.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p /tmp/bin
xz -dc .device/s15/warpcheck.xz >/tmp/bin/warpcheck && chmod +x /tmp/bin/warpcheck
xz -dc .device/s15/tests.xz >.device/tests && chmod +x .device/tests
export LD_LIBRARY_PATH="$(bash scripts/nccl.sh)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
W=/tmp/bin/warpcheck M=.device/mcc-all
run() { # label, kernels (new|old), then warpcheck arguments
    local label=$1 kernels=$2; shift 2
    local dir=""
    [[ $kernels == old ]] && dir=.device/s15/k-old
    echo "=== $label ($kernels kernels): warpcheck $*"
    WARPCHECK_KERNEL_DIR=$dir timeout 200 "$W" "$@" 2>&1 | grep -E "^(states|transitions|time|memory|exchange|engine|hash table):"
}
A=$M/AutoFlight-PT-06a/model.pnml
for k in new old new old; do run "AutoFlight-PT-06a traces gpus=2" $k check $A --engine gpu --gpus 2 -v; done
for k in new old new old; do run "AutoFlight-PT-06a traces gpus=1" $k check $A --engine gpu --gpus 1 -v; done
for k in new old; do run "AutoFlight-PT-06a trees no traces gpus=1" $k check $A --engine gpu --gpus 1 --storage tree --no-trace -v; done
for k in new old; do run "Philosophers-PT-000020 trees no traces gpus=1" $k check $M/Philosophers-PT-000020/model.pnml --engine gpu --gpus 1 --storage tree --no-trace -v; done
for g in 2 1; do run "Parking-PT-208 plain no traces gpus=$g" new check $M/Parking-PT-208/model.pnml --engine gpu --gpus $g --storage plain --no-trace -v; done
echo "=== partitioned tests"
WARPCHECK_MCC=$M WARPCHECK_MCC_MAX=100000000 WARPCHECK_BIN=/tmp/bin/warpcheck timeout 280 bash scripts/gpu_test.sh gpu_partitioned:: 2>&1 | tail -40
