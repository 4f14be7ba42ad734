#!/usr/bin/env bash
# Call 1 on nvidia-h200-x2: where the two-GPU search spends its time
# (expanding / moving / storing), 1 against 2 GPUs on the nets of >= 10^9
# states, every ../shared/mcc net up to 10^9 states on 2 GPUs and on 1,
# and 21,624,372,014 philosophers' states on two GPUs (compact roots).
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p /tmp/bin
xz -dc .device/s15/warpcheck.xz >/tmp/bin/warpcheck && chmod +x /tmp/bin/warpcheck
export LD_LIBRARY_PATH="$(bash scripts/nccl.sh)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
nvidia-smi topo -m | head -4
W=/tmp/bin/warpcheck M=.device/mcc-all
run() { # label, then warpcheck arguments
    local label=$1; shift
    echo "=== $label: warpcheck $*"
    /usr/bin/time -f "wall %e s, max RSS %M KB" timeout 300 "$W" "$@" 2>&1 | grep -v "^level \|DEBUG" | tail -40
}
for net in AutoFlight-PT-06a Philosophers-PT-000020 Parking-PT-208; do
    for gpus in 2 1; do
        run "$net traces gpus=$gpus" check "$M/$net/model.pnml" --engine gpu --gpus $gpus -v
    done
done
for gpus in 2 1; do
    run "AutoFlight-PT-06a no traces gpus=$gpus" check "$M/AutoFlight-PT-06a/model.pnml" --engine gpu --gpus $gpus --no-trace -v
done
echo "=== AutoFlight-PT-06a per level, 2 GPUs, -vv"
timeout 120 "$W" check "$M/AutoFlight-PT-06a/model.pnml" --engine gpu --gpus 2 -vv >"$OUT/autoflight-vv.txt" 2>&1
grep -c "successors moved" "$OUT/autoflight-vv.txt"
for gpus in 2 1; do
    echo "=== MCC nets up to 10^9 states, --gpus $gpus"
    timeout 200 bash scripts/mcc_table.sh --bin "$W" --engine gpu --args "--gpus $gpus" --max-states 1000000000 --timeout 60 "$M"
done
echo "=== capacity forecasts (one GPU, trees, no traces)"
timeout 60 "$W" check .device/s15/phil27.net --engine gpu --gpus 1 --storage tree --no-trace -v --max-states 2 2>&1 | grep -i "table\|nodes" | head -5
run "philosophers 27, 2 GPUs, trees, no traces" check .device/s15/phil27.net --engine gpu --gpus 2 --storage tree --no-trace --deadlock --all -v
