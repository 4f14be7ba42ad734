#!/usr/bin/env bash
# Call 5 on nvidia-h200-x2, the final build (NCCL connects its pairs during
# set-up): the three nets of >= 10^9 states on 2 GPUs and on 1, beside the
# build of call 1 once; then the partitioned search's GPU tests.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p /tmp/bin
xz -dc .device/s15/warpcheck.xz >/tmp/bin/warpcheck && chmod +x /tmp/bin/warpcheck
xz -dc .device/s15/warpcheck-before.xz >/tmp/bin/warpcheck-before && chmod +x /tmp/bin/warpcheck-before
xz -dc .device/s15/tests.xz >.device/tests && chmod +x .device/tests
export LD_LIBRARY_PATH="$(bash scripts/nccl.sh)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
M=.device/mcc-all
run() { # label, build (new|before), then warpcheck arguments
    local label=$1 build=$2; shift 2
    local bin=/tmp/bin/warpcheck dir=""
    [[ $build == before ]] && bin=/tmp/bin/warpcheck-before dir=.device/s15/k-old
    echo "=== $label ($build): warpcheck $*"
    WARPCHECK_KERNEL_DIR=$dir /usr/bin/time -f "wall %e s" timeout 100 "$bin" "$@" 2>&1 | grep -E "^(states|transitions|time|exchange|set-up \(compile, allocate\)|wall)"
}
A=$M/AutoFlight-PT-06a/model.pnml P=$M/Philosophers-PT-000020/model.pnml K=$M/Parking-PT-208/model.pnml
for b in new before new; do run "AutoFlight-PT-06a traces gpus=2" $b check $A --engine gpu --gpus 2 -v; done
run "AutoFlight-PT-06a traces gpus=1" new check $A --engine gpu --gpus 1 -v
run "Philosophers-PT-000020 traces gpus=2" new check $P --engine gpu --gpus 2 -v
run "Philosophers-PT-000020 traces gpus=1" new check $P --engine gpu --gpus 1 -v
run "Parking-PT-208 plain no traces gpus=2" new check $K --engine gpu --gpus 2 --storage plain --no-trace -v
run "Parking-PT-208 plain no traces gpus=1" new check $K --engine gpu --gpus 1 --storage plain --no-trace -v
echo "=== partitioned tests"
WARPCHECK_MCC=$M WARPCHECK_MCC_MAX=100000000 WARPCHECK_BIN=/tmp/bin/warpcheck timeout 235 bash scripts/gpu_test.sh gpu_partitioned:: 2>&1 | tail -16
