#!/usr/bin/env bash
# Device call D (session 38), issue 17: the probe step computed at a
# probe's first move instead of at its start, in every table (kv/lazy,
# on top of kv/side), against kv/side and the kernels of HEAD (kv/base),
# swapped by WARPCHECK_KERNEL_DIR in one binary. First the GPU tests of
# plain, tree and compact storage on kv/lazy (the kernels to be
# committed; the host code is unchanged), then search times, alternating
# kernels: AutoFlight-PT-06a (trees with compact roots, marks and queues;
# plain) and Parking-PT-208 (compact, marks and queues; plain).
# Carried: .device/s38.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/shared
exec > >(tee "$out/run-d.txt") 2>&1
d=.device/s38
start=$(date +%s)
nvidia-smi -L; date -u; cat $d/BUILD
for b in final treeq tests; do xz -dc $d/$b.xz > /tmp/bin/$b; done
chmod +x /tmp/bin/*
tar -C /tmp/shared --strip-components=1 -xJf $d/mcc3.tar.xz
export WARPCHECK_KERNEL_CACHE=/tmp/kc
WARPCHECK_KERNEL_DIR=$d/kv/lazy WARPCHECK_BIN=/tmp/bin/final timeout 230 /tmp/bin/tests --include-ignored --test-threads=1 \
  gpu::specs_match gpu::small_mcc gpu::tree_storage gpu::compact gpu::auto_storage gpu_partitioned::compact > /tmp/tests.txt 2>&1
echo "tests rc $?"
grep -E "^test |test result" /tmp/tests.txt
grep -E -A12 "^---- |panicked" /tmp/tests.txt | head -40
cp /tmp/tests.txt "$out/tests-d.txt"
echo "at $(( $(date +%s) - start )) s"
field() { python3 -c "import json,sys; r=json.load(sys.stdin); print('\t'.join(str(r.get(k)) for k in sys.argv[1:]))" "$@"; }
run() { # kernels frontier model storage
  local bin=final; [[ $2 == queue ]] && bin=treeq
  printf '%s\t%s\t%s\t%s\t' "$1" "$4" "$2" "$3"
  WARPCHECK_KERNEL_DIR=$d/kv/$1 SCRATCH_TREE_QUEUE=1 /tmp/bin/$bin check --engine gpu --gpus 1 --no-trace \
    --deadlock --all --format json --storage $4 /tmp/shared/mcc/$3/model.pnml \
    | field states search_seconds states_per_second bytes_per_state
}
for k in base side lazy; do run $k marks AutoFlight-PT-06a tree; run $k queue AutoFlight-PT-06a tree; run $k queue AutoFlight-PT-06a plain; done
echo "at $(( $(date +%s) - start )) s"
for k in side lazy; do run $k marks Parking-PT-208 tree; run $k queue Parking-PT-208 tree; done
for k in base lazy; do run $k queue Parking-PT-208 plain; done
echo "took $(( $(date +%s) - start )) s"; date -u
