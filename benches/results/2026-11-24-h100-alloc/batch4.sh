#!/usr/bin/env bash
# Call 4: tables allocated synchronously (cuMemAlloc) instead of from the stream-ordered pool: GPU tests, then the
# few-transition nets against the build before rule indexes (old), growing (default) and largest.
cd "$(dirname "$0")/.."
nvidia-smi -L
( WARPCHECK_MCC=.device/bench WARPCHECK_MCC_MAX=1000000000 WARPCHECK_BIN=.device/warpcheck timeout 330 bash scripts/gpu_test.sh \
    gpu::tables_that_grow gpu::tree_storage gpu::auto_storage gpu::a_full gpu::a_search_after \
    gpu_partitioned::partitioned_search gpu_partitioned::levels ) > "$OUT/tests.txt" 2>&1
grep -E "^test |test result" "$OUT/tests.txt"
TABLE_BENCH_REPEATS=3 TABLE_BENCH_TRACE=no-trace timeout 200 scripts/table_bench.sh \
    .device/warpcheck-old .device/warpcheck .device/bench AutoFlight-PT-05a DES-PT-01a FlexibleBarrier-PT-08a Peterson-PT-4 ASLink-PT-01a \
    > "$OUT/table-notrace.tsv" 2> "$OUT/table-notrace.err"
cat "$OUT/table-notrace.tsv"
