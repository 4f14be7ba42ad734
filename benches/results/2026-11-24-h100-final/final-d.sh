#!/usr/bin/env bash
# Final check, call D: the race test after its expectation was updated to AUTO_RACE.
cd "$(dirname "$0")/.."
nvidia-smi -L
WARPCHECK_BIN=.device/warpcheck timeout 300 bash scripts/gpu_test.sh parity_gpu::a_race parity_gpu::the_cli > "$OUT/tests-d.txt" 2>&1
grep -E "^test |test result|panicked" "$OUT/tests-d.txt"
