#!/usr/bin/env bash
# Call 3: the GPU tests on the final binaries (call 2 ran the whole gpu::
# set and ran out of time in random_networks_match_the_reference; here the
# tests that cover the layout, tree storage and auto's choice first), then
# where tree storage loses time against plain: the node table probed in
# only 2^18 or 2^21 buckets (.device/kv/nodes18, nodes21: the used nodes
# dense in the L2 cache; exact only while they fit, which the run checks),
# and root pairs instead of compact roots.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/call3-out}
mkdir -p "$out"
exec > >(tee "$out/call3.txt") 2>&1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; date -u
export WARPCHECK_MCC=.device/mcc-all WARPCHECK_GRAPHS=.device/graphs WARPCHECK_BIN=$PWD/.device/new/warpcheck
t() { local limit=$1; shift; timeout $limit bash scripts/gpu_test.sh "$@" 2>&1 | grep -E "^test |test result|panicked|failures" | grep -v " ok$"; echo "exit ${PIPESTATUS[0]} after $SECONDS s: $*"; }
t 60 gpu::auto_storage gpu::a_full gpu::a_device_failure gpu::specs_match gpu::long_chains
t 120 gpu::compact_roots_match_the_reference gpu::small_mcc_models gpu::mcc_models_match
t 100 gpu::wide_random_networks gpu_partitioned::
date -u
bench() { # label kinds traces model...
  local label=$1 kinds=$2 traces=$3; shift 3
  STORAGE_BENCH_KINDS=$kinds STORAGE_BENCH_TRACE=$traces timeout 100 \
    bash scripts/storage_bench.sh .device/new/warpcheck .device/mcc "$@" | tail -n +2 | sed "s/^/$label\t/"
}
for model in Philosophers-PT-000020 AutoFlight-PT-06a Parking-PT-208; do
  bench final tree no-trace $model
  WARPCHECK_KERNEL_DIR=.device/kv/nodes18 bench nodes18 tree no-trace $model
  WARPCHECK_KERNEL_DIR=.device/kv/nodes21 bench nodes21 tree no-trace $model
  STORAGE_BENCH_EXTRA="--tree-roots pairs" bench pairs tree no-trace $model
done
date -u
