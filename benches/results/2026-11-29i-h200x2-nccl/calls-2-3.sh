#!/usr/bin/env bash
# Calls 2 and 3 on the same warm nvidia-h200-x2 (after run.sh, which gave
# the net's folder instead of its model.pnml): AutoFlight-PT-06a explored
# on 2 GPUs and on 1 (call 2: 2 then 1, output cut by `tail`; call 3:
# 2, 1, 2, whole output). /tmp/bin/warpcheck is run.sh's.
export NCCL_NVLS_ENABLE=0
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
for gpus in 2 1 2; do
    echo "== AutoFlight-PT-06a --gpus $gpus"
    s=$(date +%s%N)
    timeout 40 /tmp/bin/warpcheck -v check .device/g/mcc/AutoFlight-PT-06a/model.pnml --engine gpu --gpus $gpus 2>&1 \
        | grep -v "^device\|INFO"
    echo "wall $(( ($(date +%s%N) - s) / 1000000 )) ms"
done 2>&1 | tee "$OUT/run3.txt"
