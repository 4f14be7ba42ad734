#!/usr/bin/env bash
# Call A (session 37), issue 17: the insertion group's OR by one
# __reduce_or_sync instead of three shuffles and ORs (`group_or` in
# kernels/explore/table.cuh; the kernels of .device/s37/kv/redux, swapped
# in by WARPCHECK_KERNEL_DIR, against the built-in ones of the same
# binary). GPU tests of tree and plain storage on the variant first, then
# the search alternately with either kernels: trees without traces on
# AutoFlight-PT-06a, Philosophers-PT-000020 and Parking-PT-208, plain
# storage on Philosophers-PT-000020.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/shared
exec > >(tee "$out/run-a.txt") 2>&1
d=.device/s37
start=$(date +%s)
nvidia-smi -L; cat $d/BUILD
for f in warpcheck tests; do xz -dc $d/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
tar -C /tmp/shared --strip-components=1 -xJf $d/shared.tar.xz
cp /tmp/bin/tests .device/tests
echo "== GPU tests on the variant $(date -u +%T)"
WARPCHECK_KERNEL_DIR=$PWD/$d/kv/redux WARPCHECK_MCC=/tmp/shared/mcc WARPCHECK_BIN=/tmp/bin/warpcheck \
  timeout 110 bash scripts/gpu_test.sh gpu::compact_roots_match_the_reference gpu::auto_storage \
  gpu::tables_that_grow gpu::specs_match gpu::a_full > /tmp/tests.txt 2>&1
echo "tests rc=$?"
grep -E -A3 "^test |test result|panicked|assert" /tmp/tests.txt | grep -v "^\s*$" | grep -v " ok$" | head -40
echo "GPU tests took $(( $(date +%s) - start )) s"
bench() { # label kinds model
  local label=$1 kinds=$2 model=$3 dir=
  [[ $label == redux ]] && dir=$PWD/$d/kv/redux
  WARPCHECK_KERNEL_DIR=$dir STORAGE_BENCH_KINDS=$kinds STORAGE_BENCH_TRACE=no-trace timeout 100 \
    bash scripts/storage_bench.sh /tmp/bin/warpcheck /tmp/shared/mcc "$model" | tail -n +2 | sed "s/^/$label\t/"
}
for model in AutoFlight-PT-06a Philosophers-PT-000020 Parking-PT-208; do
  for label in built-in redux; do bench $label tree $model; done
done
for label in built-in redux; do bench $label plain Philosophers-PT-000020; done
echo "took $(( $(date +%s) - start )) s"
