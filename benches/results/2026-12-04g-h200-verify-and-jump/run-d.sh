#!/usr/bin/env bash
# Call D (session 40): verify main's landed binaries on a GPU and time the
# branch jump-grows-at-spill beside them. Carry .device/s40 and set
# D=.device/s40; it holds `final` and `tests` (main), `jump` (the branch's
# CLI), all stripped and xz'd, and mcc3.tar.xz (shared/mcc's AutoFlight-PT-05a
# and -06a, Parking-PT-208, Philosophers-PT-000020 with their oracles).
# (1) the three nets under trees without traces, main then jump;
# (2) Parking-PT-208 with traces under trees (main's spilling queue, then jump);
# (3) main's GPU tests of every storage and frontier, in the time left.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
d=${D:?set D to the carried folder}
mkdir -p "$out" /tmp/bin /tmp/shared
exec > >(tee "$out/run-d.txt") 2>&1
start=$(date +%s)
nvidia-smi -L; date -u; cat $d/BUILD
for b in final jump tests; do xz -dc $d/$b.xz > /tmp/bin/$b; done
chmod +x /tmp/bin/*
tar -C /tmp/shared --strip-components=1 -xJf $d/mcc3.tar.xz
grep -E "AutoFlight-PT-06a|Parking-PT-208|Philosophers-PT-000020" /tmp/shared/mcc/oracles.tsv
export WARPCHECK_KERNEL_CACHE=/tmp/kc NCCL_NVLS_ENABLE=0
field() { python3 -c "import json,sys; r=json.load(sys.stdin); print('\t'.join(str(r.get(k)) for k in sys.argv[1:]))" "$@"; }
run() { # binary traces|no-trace model
  printf '%s\t%s\t%s\t' "$1" "$2" "$3"
  timeout 120 /tmp/bin/$1 check --engine gpu --gpus 1 $([[ $2 == no-trace ]] && echo --no-trace) --deadlock --all \
    --format json --storage tree /tmp/shared/mcc/$3/model.pnml |
    field states search_seconds states_per_second bytes_per_state memory_bytes exit_code
}
for model in AutoFlight-PT-06a Parking-PT-208 Philosophers-PT-000020; do
  for b in final jump; do run $b no-trace $model; done
  echo "at $(( $(date +%s) - start )) s"
done
for b in final jump; do run $b traces Parking-PT-208; done
left=$(( 570 - ($(date +%s) - start) ))
echo "at $(( $(date +%s) - start )) s; tests get $left s"
WARPCHECK_BIN=/tmp/bin/final timeout $left /tmp/bin/tests --include-ignored --test-threads=1 \
  gpu::compact_tables_that_grow gpu::spilling gpu::tables_that_grow gpu::compact_roots gpu_partitioned::compact \
  gpu::auto_storage gpu::small_mcc gpu::specs_match > /tmp/tests.txt 2>&1
echo "tests rc $?"
grep -E "^test |test result" /tmp/tests.txt
grep -E -A12 "^---- |panicked" /tmp/tests.txt | head -60
cp /tmp/tests.txt "$out/tests-d.txt"
echo "took $(( $(date +%s) - start )) s"; date -u
