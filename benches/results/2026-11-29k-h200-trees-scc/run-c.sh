#!/usr/bin/env bash
# Device call C: a warp's claim of the new-mark bitmap sized by the level's
# density (about 32 marks; k-new) against the fixed 1024 words before
# (k-old), trees with compact roots, no traces, one binary, kernels
# swapped by WARPCHECK_KERNEL_DIR, alternately; AutoFlight-PT-06a with
# traces on k-new; then the tree GPU tests on the new binary (embedded
# kernels = k-new). Carried: .device/s14, .device/mcc-all, .device/f/mcc.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin
exec > >(tee "$out/run-c.txt") 2>&1
nvidia-smi -L
for f in warpcheck tests; do xz -dc .device/s14/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
cp /tmp/bin/tests .device/tests
bench() { # kernels, trace kinds, nets...
  local v=$1 traces=$2; shift 2
  echo "-- kernels $v"
  WARPCHECK_KERNEL_DIR=.device/s14/k-$v STORAGE_BENCH_KINDS=tree STORAGE_BENCH_TRACE=$traces \
    timeout 150 bash scripts/storage_bench.sh /tmp/bin/warpcheck .device/mcc-all "$@" | tail -n +2
}
for v in new old new old; do bench $v no-trace AutoFlight-PT-06a Philosophers-PT-000020; done
for v in new old; do bench $v no-trace Parking-PT-208; done
bench new trace AutoFlight-PT-06a
echo "== GPU tests, new binary"
WARPCHECK_MCC=.device/f/mcc WARPCHECK_BIN=/tmp/bin/warpcheck timeout 170 bash scripts/gpu_test.sh \
  gpu::compact_roots_match gpu::auto_storage gpu::tables_that_grow 2>&1 | grep -E "^test |test result|panicked|assert" | head -20
