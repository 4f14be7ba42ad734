#!/usr/bin/env bash
# Call 4, the same final binaries as calls 2 and 3: the GPU tests that
# call 3 ran out of time for, with more time each (tree storage on random
# networks, specs and small contest nets; the contest nets against the
# published counts).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/call4-out}
mkdir -p "$out"
exec > >(tee "$out/call4.txt") 2>&1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; date -u
export WARPCHECK_MCC=.device/mcc-all WARPCHECK_GRAPHS=.device/graphs WARPCHECK_BIN=$PWD/.device/new/warpcheck
t() { local limit=$1; shift; timeout $limit bash scripts/gpu_test.sh "$@" 2>&1 | grep -E "^test |test result|panicked|failures" | grep -v " ok$"; echo "exit ${PIPESTATUS[0]} after $SECONDS s: $*"; }
t 230 gpu::compact_roots_match_the_reference
t 120 gpu::small_mcc_models gpu::mcc_models_match
date -u
