#!/usr/bin/env bash
# Device call B (session 39), issue 17: kernels with the mark walk in
# shared memory and one expansion loop (kv/v3, branch tree-spill-shared),
# and v3 with 3-word trees without arrays (kv/v3t2). First the compact
# growth test that failed in call A (its message was cut off), on v3;
# then search times of the three large nets: main's bitmaps (marks), plain
# queues (treeq, as call A), the spilling queue of call A (spill), v3's
# spilling queue, v3's bitmaps (scratch build: SCRATCH_TREE_MARKS=1 gives
# trees bitmaps of new marks), v3t2's spilling queue; then GPU tests on v3.
# Carried: .device/s39.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
d=.device/s39
mkdir -p "$out" /tmp/bin /tmp/shared
exec > >(tee "$out/run-b.txt") 2>&1
start=$(date +%s)
nvidia-smi -L; date -u; cat $d/BUILD
for b in main spill treeq tests scratch; do xz -dc $d/$b.xz > /tmp/bin/$b; done
chmod +x /tmp/bin/*
tar -C /tmp/shared --strip-components=1 -xJf $d/mcc3.tar.xz
export WARPCHECK_KERNEL_CACHE=/tmp/kc NCCL_NVLS_ENABLE=0
WARPCHECK_KERNEL_DIR=$d/kv/v3 WARPCHECK_BIN=/tmp/bin/scratch timeout 150 /tmp/bin/tests --include-ignored --test-threads=1 \
  gpu::compact_tables_that_grow > /tmp/tests1.txt 2>&1
echo "test rc $?"; tail -40 /tmp/tests1.txt; cp /tmp/tests1.txt "$out/tests-b1.txt"
echo "at $(( $(date +%s) - start )) s"
field() { python3 -c "import json,sys; r=json.load(sys.stdin); print('\t'.join(str(r.get(k)) for k in sys.argv[1:]))" "$@"; }
run() { # label binary kernels model [env]
  printf '%s\t%s\t' "$1" "$4"
  env ${3:+WARPCHECK_KERNEL_DIR=$d/kv/$3} ${5:-} SCRATCH_TREE_QUEUE=$([[ $1 == queue ]] && echo 1) /tmp/bin/$2 check --engine gpu --gpus 1 --no-trace \
    --deadlock --all --format json --storage tree /tmp/shared/mcc/$4/model.pnml \
    | field states search_seconds states_per_second bytes_per_state memory_bytes
}
for model in AutoFlight-PT-06a Parking-PT-208 Philosophers-PT-000020; do
  run marks main "" $model
  run queue treeq side $model
  run spill spill "" $model
  run v3-spill scratch v3 $model
  run v3-marks scratch v3 $model SCRATCH_TREE_MARKS=1
  run v3t2-spill scratch v3t2 $model
  echo "at $(( $(date +%s) - start )) s"
done
left=$(( 570 - ($(date +%s) - start) ))
WARPCHECK_KERNEL_DIR=$d/kv/v3 WARPCHECK_BIN=/tmp/bin/scratch timeout $left /tmp/bin/tests --include-ignored --test-threads=1 \
  gpu::spilling gpu::tables_that_grow gpu::compact_roots gpu_partitioned::compact gpu::small_mcc gpu::auto_storage \
  gpu::specs_match > /tmp/tests.txt 2>&1
echo "tests rc $?"
grep -E "^test |test result" /tmp/tests.txt
grep -E -A12 "^---- |panicked" /tmp/tests.txt | head -60
cp /tmp/tests.txt "$out/tests-b.txt"
echo "took $(( $(date +%s) - start )) s"; date -u
