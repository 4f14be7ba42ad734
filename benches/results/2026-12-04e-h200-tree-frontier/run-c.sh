#!/usr/bin/env bash
# Device call C (session 38), issue 17: compact insertion that reads only
# the sides of the slots whose head equals ours (a shuffle from the lane
# that read the side's word) instead of testing all 21 sides and OR-ing
# two more masks over the group (kernels kv/side against kv/base, swapped
# by WARPCHECK_KERNEL_DIR in one binary). First the GPU tests of tree and
# compact storage on kv/side, then search times alternating base and side:
# AutoFlight-PT-06a twice and Parking-PT-208 once, trees with compact
# roots, queues (treeq, SCRATCH_TREE_QUEUE=1) and marks (final).
# Carried: .device/s38.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/shared
exec > >(tee "$out/run-c.txt") 2>&1
d=.device/s38
start=$(date +%s)
nvidia-smi -L; date -u; cat $d/BUILD
for b in final treeq tests; do xz -dc $d/$b.xz > /tmp/bin/$b; done
chmod +x /tmp/bin/*
tar -C /tmp/shared --strip-components=1 -xJf $d/mcc3.tar.xz
export WARPCHECK_KERNEL_CACHE=/tmp/kc
WARPCHECK_KERNEL_DIR=$d/kv/side WARPCHECK_BIN=/tmp/bin/final timeout 200 /tmp/bin/tests --include-ignored --test-threads=1 \
  gpu::tree_storage gpu::compact gpu::auto_storage gpu_partitioned::compact > /tmp/tests.txt 2>&1
echo "tests rc $?"
grep -E "^test |test result" /tmp/tests.txt
grep -E -A12 "^---- |panicked" /tmp/tests.txt | head -40
cp /tmp/tests.txt "$out/tests-c.txt"
echo "at $(( $(date +%s) - start )) s"
field() { python3 -c "import json,sys; r=json.load(sys.stdin); print('\t'.join(str(r.get(k)) for k in sys.argv[1:]))" "$@"; }
run() { # kernels bin frontier model
  printf '%s\t%s\t%s\t' "$1" "$3" "$4"
  WARPCHECK_KERNEL_DIR=$d/kv/$1 SCRATCH_TREE_QUEUE=$([[ $3 == queue ]] && echo 1) /tmp/bin/$2 check --engine gpu --gpus 1 --no-trace \
    --deadlock --all --format json --storage tree /tmp/shared/mcc/$4/model.pnml \
    | field states search_seconds states_per_second bytes_per_state
}
for rep in 1 2; do
  for k in base side; do run $k treeq queue AutoFlight-PT-06a; run $k final marks AutoFlight-PT-06a; done
done
echo "at $(( $(date +%s) - start )) s"
for k in base side; do run $k treeq queue Parking-PT-208; done
for k in base side; do run $k final marks Parking-PT-208; done
echo "took $(( $(date +%s) - start )) s"; date -u
