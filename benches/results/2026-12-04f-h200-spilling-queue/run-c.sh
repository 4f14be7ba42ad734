#!/usr/bin/env bash
# Device call C (session 39), issue 17: the final binaries of branch
# tree-spill-shared (994e86ce: mark walks in shared memory, one expansion
# loop, spilling queues only in a table that never grows) against main
# (9a118b46). Search times of the three large nets with trees (final:
# spilling queue; main: bitmaps) and plain storage on both; then the GPU
# tests of every storage and frontier on the final binaries.
# Carried: .device/s39.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
d=.device/s39
mkdir -p "$out" /tmp/bin /tmp/shared
exec > >(tee "$out/run-c.txt") 2>&1
start=$(date +%s)
nvidia-smi -L; date -u; cat $d/BUILD
for b in main final tests; do xz -dc $d/$b.xz > /tmp/bin/$b; done
chmod +x /tmp/bin/*
tar -C /tmp/shared --strip-components=1 -xJf $d/mcc3.tar.xz
export WARPCHECK_KERNEL_CACHE=/tmp/kc NCCL_NVLS_ENABLE=0
field() { python3 -c "import json,sys; r=json.load(sys.stdin); print('\t'.join(str(r.get(k)) for k in sys.argv[1:]))" "$@"; }
run() { # binary storage model
  printf '%s\t%s\t%s\t' "$1" "$2" "$3"
  /tmp/bin/$1 check --engine gpu --gpus 1 --no-trace --deadlock --all --format json --storage $2 \
    /tmp/shared/mcc/$3/model.pnml | field states search_seconds states_per_second bytes_per_state memory_bytes
}
for model in AutoFlight-PT-06a Parking-PT-208 Philosophers-PT-000020; do
  for b in main final; do run $b tree $model; done
  if [[ $model != Philosophers-PT-000020 ]]; then for b in main final; do run $b plain $model; done; fi
  echo "at $(( $(date +%s) - start )) s"
done
left=$(( 575 - ($(date +%s) - start) ))
WARPCHECK_BIN=/tmp/bin/final timeout $left /tmp/bin/tests --include-ignored --test-threads=1 \
  gpu::compact_tables_that_grow gpu::spilling gpu::tables_that_grow gpu::compact_roots gpu_partitioned::compact \
  gpu::auto_storage gpu::small_mcc gpu::specs_match > /tmp/tests.txt 2>&1
echo "tests rc $?"
grep -E "^test |test result" /tmp/tests.txt
grep -E -A12 "^---- |panicked" /tmp/tests.txt | head -60
cp /tmp/tests.txt "$out/tests-c.txt"
echo "took $(( $(date +%s) - start )) s"; date -u
