#!/usr/bin/env bash
# GPU throughput on large MCC models beside the reference engine, in one
# run on one machine; prints one line per run (see bench-results/gpu.md).
#
# Prepare as for scripts/gpu_test.sh, then run there:
#   scripts/gpu_bench.sh [MODELS] [REFERENCE_MODELS] [ABLATE_MODELS]
# each a comma-separated list of folder names under $WARPCHECK_MCC.
set -euo pipefail
bin=.device/gpu-test
export WARPCHECK_MCC=${WARPCHECK_MCC:-.device/mcc}
export WARPCHECK_BENCH=${1:-Peterson-PT-3,Referendum-PT-0015,DLCround-PT-03a,AutoFlight-PT-05a,DES-PT-01a,ASLink-PT-01a,FlexibleBarrier-PT-08a,Peterson-PT-4}
export WARPCHECK_BENCH_REFERENCE=${2:-Peterson-PT-3,Referendum-PT-0015}
export WARPCHECK_BENCH_ABLATE=${3:-AutoFlight-PT-05a}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
"$bin" --ignored --exact bench --nocapture --test-threads=1
