#!/usr/bin/env bash
# Device call E (session 38), issue 17: the kernels committed (kv/side,
# identical to kernels/ of the commit; host code unchanged since
# 939097f9): the compact-root GPU tests, including the partitioned one
# that calls C and D did not reach, then Philosophers-PT-000020 with trees
# (compact roots, marks) on the kernels of HEAD (kv/base) and kv/side.
# Carried: .device/s38.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/shared
exec > >(tee "$out/run-e.txt") 2>&1
d=.device/s38
start=$(date +%s)
nvidia-smi -L; date -u; cat $d/BUILD
for b in final treeq tests; do xz -dc $d/$b.xz > /tmp/bin/$b; done
chmod +x /tmp/bin/*
tar -C /tmp/shared --strip-components=1 -xJf $d/mcc3.tar.xz
export WARPCHECK_KERNEL_CACHE=/tmp/kc NCCL_NVLS_ENABLE=0
if nccl=$(scripts/nccl.sh); then export LD_LIBRARY_PATH="$nccl${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; fi
WARPCHECK_KERNEL_DIR=$d/kv/side WARPCHECK_BIN=/tmp/bin/final timeout 150 /tmp/bin/tests --include-ignored --test-threads=1 \
  gpu_partitioned::compact gpu::compact gpu::auto_storage > /tmp/tests.txt 2>&1
echo "tests rc $?"
grep -E "^test |test result" /tmp/tests.txt
grep -E -A12 "^---- |panicked" /tmp/tests.txt | head -40
cp /tmp/tests.txt "$out/tests-e.txt"
echo "at $(( $(date +%s) - start )) s"
field() { python3 -c "import json,sys; r=json.load(sys.stdin); print('\t'.join(str(r.get(k)) for k in sys.argv[1:]))" "$@"; }
for k in base side; do
  printf '%s\ttree\tmarks\tPhilosophers-PT-000020\t' $k
  WARPCHECK_KERNEL_DIR=$d/kv/$k /tmp/bin/final check --engine gpu --gpus 1 --no-trace --deadlock --all --format json \
    --storage tree /tmp/shared/mcc/Philosophers-PT-000020/model.pnml | field states search_seconds states_per_second bytes_per_state
done
echo "took $(( $(date +%s) - start )) s"; date -u
