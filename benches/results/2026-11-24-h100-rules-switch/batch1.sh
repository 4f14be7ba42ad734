#!/usr/bin/env bash
# Call 1: kernel switch RULE_INDEXES checked, and few-transition nets side by side (old 4ac5eb6 / new / new largest / LAST_STEP_SHARE 4).
cd "$(dirname "$0")/.."
nvidia-smi -L
( WARPCHECK_MCC=.device/bench WARPCHECK_MCC_MAX=1000000000 WARPCHECK_BIN=.device/warpcheck timeout 300 bash scripts/gpu_test.sh \
    gpu::mcc_models gpu::random_networks_match gpu::small_mcc gpu::tree_storage ) > "$OUT/tests.txt" 2>&1
tail -5 "$OUT/tests.txt"
TABLE_BENCH_REPEATS=3 TABLE_BENCH_TRACE=no-trace TABLE_BENCH_OTHER=.device/warpcheck-ls4 timeout 260 scripts/table_bench.sh \
    .device/warpcheck-old .device/warpcheck .device/bench AutoFlight-PT-05a DES-PT-01a FlexibleBarrier-PT-08a Peterson-PT-4 ASLink-PT-01a \
    > "$OUT/table-notrace.tsv" 2> "$OUT/table-notrace.err"
cat "$OUT/table-notrace.tsv"
