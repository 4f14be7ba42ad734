#!/usr/bin/env bash
# Call 4 on nvidia-h200-x2: chunks of 2^22 messages (this build) against
# 2^20 (warpcheck-c20, the same source with CHUNK_MESSAGES = 1 << 20),
# alternately; then on this build: every ../shared/mcc net up to 10^9
# states on 2 GPUs, 21,624,372,014 philosophers' states on 2 GPUs, and
# AutoFlight-PT-06a's levels with -vv.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p /tmp/bin
xz -dc .device/s15/warpcheck.xz >/tmp/bin/warpcheck && chmod +x /tmp/bin/warpcheck
xz -dc .device/s15/warpcheck-c20.xz >/tmp/bin/warpcheck-c20 && chmod +x /tmp/bin/warpcheck-c20
export LD_LIBRARY_PATH="$(bash scripts/nccl.sh)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
M=.device/mcc-all W=/tmp/bin/warpcheck
run() { # label, binary, then warpcheck arguments
    local label=$1 bin=$2; shift 2
    echo "=== $label ($bin): warpcheck $*"
    timeout 200 "/tmp/bin/$bin" "$@" 2>&1 | grep -E "^(states|transitions|deadlock states|time|memory|exchange|table capacity|kernel launches):"
}
A=$M/AutoFlight-PT-06a/model.pnml K=$M/Parking-PT-208/model.pnml
for b in warpcheck warpcheck-c20 warpcheck warpcheck-c20; do run "AutoFlight-PT-06a traces gpus=2" $b check $A --engine gpu --gpus 2 -v; done
for b in warpcheck warpcheck-c20; do run "Parking-PT-208 plain no traces gpus=2" $b check $K --engine gpu --gpus 2 --storage plain --no-trace -v; done
echo "=== MCC nets up to 10^9 states, --gpus 2"
timeout 200 bash scripts/mcc_table.sh --bin "$W" --engine gpu --args "--gpus 2" --max-states 1000000000 --timeout 60 "$M"
run "philosophers 27, 2 GPUs, trees, no traces" warpcheck check .device/s15/phil27.net --engine gpu --gpus 2 --storage tree --no-trace --deadlock --all -v
timeout 60 "$W" check "$A" --engine gpu --gpus 2 -vv >"$OUT/autoflight-vv.txt" 2>&1
grep -c "successors moved" "$OUT/autoflight-vv.txt"
