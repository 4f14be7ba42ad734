#!/usr/bin/env bash
# Prepared in session 39 on branch jump-grows-at-spill, NOT YET RUN: the
# device call for the jump table that grows at its first spill. Also carry
# main's CLI as `main` to compare (the three nets, trees, no traces).
# Build on this branch: strip and xz the CLI (`final`) and the test
# binary (`tests`) into .device/sNN, with shared/mcc's three large nets
# (mcc3.tar.xz, as run-a.sh); carry .device/sNN and set D=.device/sNN.
# (1) GPU tests of every storage and frontier, as call C; (2)
# Parking-PT-208 with traces under trees (a spilling queue: never run);
# (3) the three nets without traces, to repeat call B's `v3 spill`.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
d=${D:?set D to the carried folder}
mkdir -p "$out" /tmp/bin /tmp/shared
exec > >(tee "$out/next-jump.txt") 2>&1
start=$(date +%s)
nvidia-smi -L; date -u; cat $d/BUILD
for b in final main tests; do xz -dc $d/$b.xz > /tmp/bin/$b; done
chmod +x /tmp/bin/*
tar -C /tmp/shared --strip-components=1 -xJf $d/mcc3.tar.xz
export WARPCHECK_KERNEL_CACHE=/tmp/kc NCCL_NVLS_ENABLE=0
WARPCHECK_BIN=/tmp/bin/final timeout 330 /tmp/bin/tests --include-ignored --test-threads=1 \
  gpu::compact_tables_that_grow gpu::spilling gpu::tables_that_grow gpu::compact_roots gpu_partitioned::compact \
  gpu::auto_storage gpu::small_mcc gpu::specs_match > /tmp/tests.txt 2>&1
echo "tests rc $?"
grep -E "^test |test result" /tmp/tests.txt
grep -E -A12 "^---- |panicked" /tmp/tests.txt | head -60
cp /tmp/tests.txt "$out/tests-jump.txt"
field() { python3 -c "import json,sys; r=json.load(sys.stdin); print('\t'.join(str(r.get(k)) for k in sys.argv[1:]))" "$@"; }
run() { # traces|no-trace model
  printf '%s\t%s\t' "$1" "$2"
  /tmp/bin/final check --engine gpu --gpus 1 $([[ $1 == no-trace ]] && echo --no-trace) --deadlock --all --format json --storage tree \
    /tmp/shared/mcc/$2/model.pnml | field states search_seconds states_per_second bytes_per_state memory_bytes exit_code
}
run traces Parking-PT-208
for model in AutoFlight-PT-06a Parking-PT-208 Philosophers-PT-000020; do
  run no-trace $model
  printf 'main\t'; /tmp/bin/main check --engine gpu --gpus 1 --no-trace --deadlock --all --format json --storage tree \
    /tmp/shared/mcc/$model/model.pnml | field states search_seconds states_per_second bytes_per_state memory_bytes
done
echo "took $(( $(date +%s) - start )) s"; date -u
