#!/usr/bin/env bash
# Final check, call C (issue 19, what one GPU allows): the split search in 1, 2, 4 and 8 partitions of one GPU,
# exact counts on every run, with and without traces.
cd "$(dirname "$0")/.."
nvidia-smi -L
STORAGE_BENCH_KINDS=auto STORAGE_BENCH_SPLITS="1 p2 p4 p8" timeout 560 scripts/storage_bench.sh .device/warpcheck .device/bench \
    Peterson-PT-4 FlexibleBarrier-PT-08a AutoFlight-PT-06a > "$OUT/splits.tsv" 2> "$OUT/splits.err"
cat "$OUT/splits.tsv"; tail -3 "$OUT/splits.err"
