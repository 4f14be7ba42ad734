#!/usr/bin/env bash
# Device call A (session 39), issue 17: spilling queues for trees (branch
# tree-spill-queue, cb25d8db) against main's bitmaps of new marks
# (9a118b46) and against plain queues for trees (session 38's scratch
# build `treeq` with SCRATCH_TREE_QUEUE=1 and kernels kv/side = main's).
# The spilling-queue binary runs with four kernel trees (WARPCHECK_KERNEL_DIR):
# the branch's (spill), with the frontier buffers chosen by selects (fb),
# fb and 3-word trees without arrays (fbt2), and 80 registers (mb3).
# Default trees (compact roots), no traces, one H200; then the branch's
# GPU tests. Carried: .device/s39.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
d=.device/s39
mkdir -p "$out" /tmp/bin /tmp/shared
exec > >(tee "$out/run-a.txt") 2>&1
start=$(date +%s)
nvidia-smi -L; date -u; cat $d/BUILD
for b in main spill treeq tests; do xz -dc $d/$b.xz > /tmp/bin/$b; done
chmod +x /tmp/bin/*
tar -C /tmp/shared --strip-components=1 -xJf $d/mcc3.tar.xz
export WARPCHECK_KERNEL_CACHE=/tmp/kc NCCL_NVLS_ENABLE=0
field() { python3 -c "import json,sys; r=json.load(sys.stdin); print('\t'.join(str(r.get(k)) for k in sys.argv[1:]))" "$@"; }
run() { # label binary kernels model
  printf '%s\t%s\t' "$1" "$4"
  env ${3:+WARPCHECK_KERNEL_DIR=$d/kv/$3} SCRATCH_TREE_QUEUE=$([[ $1 == queue ]] && echo 1) /tmp/bin/$2 check --engine gpu --gpus 1 --no-trace \
    --deadlock --all --format json --storage tree /tmp/shared/mcc/$4/model.pnml \
    | field states search_seconds states_per_second bytes_per_state memory_bytes
}
for model in AutoFlight-PT-06a Parking-PT-208 Philosophers-PT-000020; do
  run marks main "" $model
  run queue treeq side $model
  run spill spill "" $model
  run spill-fb spill fb $model
  run spill-fbt2 spill fbt2 $model
  run spill-mb3 spill mb3 $model
  echo "at $(( $(date +%s) - start )) s"
done
left=$(( 560 - ($(date +%s) - start) ))
WARPCHECK_BIN=/tmp/bin/spill timeout $left /tmp/bin/tests --include-ignored --test-threads=1 \
  gpu::spilling gpu::tables_that_grow gpu::compact gpu::auto_storage gpu::small_mcc gpu::specs_match \
  gpu_partitioned::compact > /tmp/tests.txt 2>&1
echo "tests rc $?"
grep -E "^test |test result" /tmp/tests.txt
grep -E -A12 "^---- |panicked" /tmp/tests.txt | head -60
cp /tmp/tests.txt "$out/tests-a.txt"
echo "took $(( $(date +%s) - start )) s"; date -u
