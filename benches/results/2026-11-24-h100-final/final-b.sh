#!/usr/bin/env bash
# Final check, call B (binaries of the final merge): the MCC nets up to 1e9 states on one table (ARMCacheCoherence
# with its rule indexes and reordered parallel rules), growth, full tables, the split search's traces and CLI,
# SCC over explored spaces, livelock, prob/mec, and the parity GPU tests after the priority-promotion merge.
cd "$(dirname "$0")/.."
nvidia-smi -L
WARPCHECK_MCC=.device/bench-small WARPCHECK_MCC_MAX=1000000000 WARPCHECK_PARITY=.device/parity-small WARPCHECK_BIN=.device/warpcheck \
  timeout 570 bash scripts/gpu_test.sh \
    gpu::mcc_models gpu::tables_that_grow gpu::auto_storage gpu::a_full gpu::small_mcc \
    gpu_partitioned::traces gpu_partitioned::the_cli scc::explored scc::the_gpu livelock::gpu_engine_agrees_on_random \
    prob::the_gpu mec::the_gpu parity_gpu:: > "$OUT/tests-b.txt" 2>&1
grep -E "^test |test result|panicked|SKIPPED" "$OUT/tests-b.txt"
