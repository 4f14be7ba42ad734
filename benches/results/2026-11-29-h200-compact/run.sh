#!/usr/bin/env bash
# Compact roots (issue 17) on the H200: the GPU tests of tree storage, then
# the three contest nets of more than 10^9 states stored as trees, the build
# before (f42ba3c, .device/old) and after (.device/new) alternating per
# net, traces off and on. Carried: .device (binaries, test binary, nets).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/compact-out}
mkdir -p "$out"
exec > >(tee "$out/run.txt") 2>&1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; date -u
timeout 240 bash scripts/gpu_test.sh gpu::compact gpu::tables_that_grow gpu::auto_storage \
  gpu::a_full gpu::specs_match gpu_partitioned::traces 2>&1 | grep -v "^test .* ok$" | tail -40
echo "tests exit ${PIPESTATUS[0]}"; date -u
for model in ${BENCH_MODELS:-AutoFlight-PT-06a Parking-PT-208 Philosophers-PT-000020}; do
  for build in old new; do
    STORAGE_BENCH_KINDS=tree timeout 150 bash scripts/storage_bench.sh .device/$build/warpcheck .device/mcc "$model" \
      | sed "s/^/$build\t/" | tee -a "$out/storage.tsv"
  done
done
date -u
