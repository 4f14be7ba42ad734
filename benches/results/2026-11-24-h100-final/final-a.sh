#!/usr/bin/env bash
# Final check, call A: the merged binaries' GPU tests of what changed this session (tables allocated with cuMemAlloc,
# the rule-index switch, tree storage with bitmaps, the split search's buffers, the graph left on the device).
cd "$(dirname "$0")/.."
nvidia-smi -L
WARPCHECK_MCC=.device/bench WARPCHECK_MCC_MAX=1000000000 WARPCHECK_BIN=.device/warpcheck timeout 560 bash scripts/gpu_test.sh \
    gpu::tree_storage gpu::random_networks_match gpu::the_graph_left scc::explored livelock::gpu_engine_agrees_on_random \
    gpu_partitioned::partitioned_search gpu_partitioned::traces gpu_partitioned::levels gpu_partitioned::an_overflowing \
    gpu_partitioned::nccl gpu_partitioned::the_cli > "$OUT/tests-a.txt" 2>&1
grep -E "^test |test result|panicked|SKIPPED" "$OUT/tests-a.txt"
