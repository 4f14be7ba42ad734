#!/usr/bin/env bash
# Final call on the final binaries: the compact-root GPU tests, then
# AutoFlight-PT-06a and Parking-PT-208 as trees without traces: the build
# before (f42ba3c), the final build, the final build with call 3's kernels
# (.device/kv/call3: each group computed its key's spread value inside the
# insertion), and the final build with --tree-roots pairs.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/final-out}
mkdir -p "$out"
exec > >(tee "$out/final.txt") 2>&1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; date -u
timeout 260 bash scripts/gpu_test.sh gpu::compact gpu::tables_that_grow gpu::auto_storage gpu::a_full \
  2>&1 | grep -v "^test .* ok$" | tail -30
echo "tests exit ${PIPESTATUS[0]}"; date -u
run() {
  local name=$1 net=$2 bin=$3; shift 3
  echo "== $name $net"
  timeout 60 "$bin" check --engine gpu --storage tree --no-trace --deadlock --all --format json "$@" \
    ".device/mcc/$net/model.pnml" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["states"], r["transitions"], r["search_seconds"], r["bytes_per_state"])'
}
for net in AutoFlight-PT-06a Parking-PT-208; do
  for round in 1 2; do
    run old $net .device/old/warpcheck
    run new $net .device/new/warpcheck
    [[ $net == AutoFlight-PT-06a ]] || continue
    WARPCHECK_KERNEL_DIR=.device/kv/call3 run new-call3-kernels $net .device/new/warpcheck
    run new-pairs $net .device/new/warpcheck --tree-roots pairs
  done
done
date -u
