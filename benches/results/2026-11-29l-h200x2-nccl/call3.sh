#!/usr/bin/env bash
# Call 3 on nvidia-h200-x2: the chunked exchange (each owner stores a chunk
# while the next travels; NCCL on a stream of the highest priority) against
# the build of call 1 (warpcheck-before: call 2's binary with the kernels of
# .device/s15/k-old, which are call 1's), alternately; one GPU beside them;
# then the partitioned search's GPU tests on this build.
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
    WARPCHECK_KERNEL_DIR=$dir timeout 200 "$bin" "$@" 2>&1 | grep -E "^(states|transitions|time|memory|exchange|kernel launches):"
}
A=$M/AutoFlight-PT-06a/model.pnml P=$M/Philosophers-PT-000020/model.pnml K=$M/Parking-PT-208/model.pnml
for b in new before new before; do run "AutoFlight-PT-06a traces gpus=2" $b check $A --engine gpu --gpus 2 -v; done
for b in new before; do run "AutoFlight-PT-06a no traces gpus=2" $b check $A --engine gpu --gpus 2 --no-trace -v; done
for b in new before; do run "Philosophers-PT-000020 traces gpus=2" $b check $P --engine gpu --gpus 2 -v; done
for b in new before; do run "Parking-PT-208 plain no traces gpus=2" $b check $K --engine gpu --gpus 2 --storage plain --no-trace -v; done
for i in 1 2; do run "AutoFlight-PT-06a traces gpus=1" new check $A --engine gpu --gpus 1 -v; done
run "AutoFlight-PT-06a no traces gpus=1" new check $A --engine gpu --gpus 1 --no-trace -v
run "Philosophers-PT-000020 traces gpus=1" new check $P --engine gpu --gpus 1 -v
run "Parking-PT-208 plain no traces gpus=1" new check $K --engine gpu --gpus 1 --storage plain --no-trace -v
echo "=== partitioned tests"
WARPCHECK_MCC=$M WARPCHECK_MCC_MAX=100000000 WARPCHECK_BIN=/tmp/bin/warpcheck timeout 290 bash scripts/gpu_test.sh gpu_partitioned:: 2>&1 | tail -30
