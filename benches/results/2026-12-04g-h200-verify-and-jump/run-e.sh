#!/usr/bin/env bash
# Call E (session 40): the branch jump-grows-at-spill (`jump` CLI, `jtests`
# test binary) with three kernel trees swapped in by WARPCHECK_KERNEL_DIR:
# kv/jump (the branch's), kv/pf (+ prefetch_home: every pending lane asks
# L2 for its key's home bucket before the groups insert in turn), kv/pft2
# (pf + ../2026-12-04e-h200-tree-frontier/tree-words-2.patch).
# (1) the three nets under trees without traces, each kernel tree;
# (2) AutoFlight-PT-06a plain, jump against pf (prefetch_home touches plain);
# (3) the fastest tree over the three nets: Parking-PT-208 with traces, then
# the GPU tests of every storage and frontier on it, in the time left.
# Carry .device/s40 and set D=.device/s40.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
d=${D:?set D to the carried folder}
mkdir -p "$out/json" /tmp/bin /tmp/shared
exec > >(tee "$out/run-e.txt") 2>&1
start=$(date +%s)
nvidia-smi -L; date -u; cat $d/BUILD
for b in jump jtests; do xz -dc $d/$b.xz > /tmp/bin/$b; done
chmod +x /tmp/bin/*
tar -C /tmp/shared --strip-components=1 -xJf $d/mcc3.tar.xz
export WARPCHECK_KERNEL_CACHE=/tmp/kc NCCL_NVLS_ENABLE=0
field() { python3 -c "import json,sys; r=json.load(sys.stdin); print('\t'.join(str(r.get(k)) for k in sys.argv[1:]))" "$@"; }
run() { # kernels storage traces|no-trace model
  local name="$1-$2-$3-$4"
  printf '%s\t%s\t%s\t%s\t' "$1" "$2" "$3" "$4"
  WARPCHECK_KERNEL_DIR=$d/kv/$1 timeout 120 /tmp/bin/jump check -v --engine gpu --gpus 1 \
    $([[ $3 == no-trace ]] && echo --no-trace) --deadlock --all --format json --storage $2 \
    /tmp/shared/mcc/$4/model.pnml > "$out/json/$name.json" 2> "$out/json/$name.err"
  field states search_seconds states_per_second bytes_per_state memory_bytes exit_code < "$out/json/$name.json"
}
for model in AutoFlight-PT-06a Parking-PT-208 Philosophers-PT-000020; do
  for k in jump pf pft2; do run $k tree no-trace $model; done
  echo "at $(( $(date +%s) - start )) s"
done | tee /tmp/trees.txt
for k in jump pf; do run $k plain no-trace AutoFlight-PT-06a; done
best=$(awk -F'\t' '{t[$1]+=($5>0 ? $6 : 1e9)} END {b=""; for (k in t) if (b=="" || t[k]<t[b]) b=k; print b}' <(grep -v '^at ' /tmp/trees.txt))
echo "fastest over the three nets: $best"
run $best tree traces Parking-PT-208
left=$(( 570 - ($(date +%s) - start) ))
echo "at $(( $(date +%s) - start )) s; tests on kv/$best get $left s"
WARPCHECK_KERNEL_DIR=$d/kv/$best WARPCHECK_BIN=/tmp/bin/jump timeout $left /tmp/bin/jtests --include-ignored --test-threads=1 \
  gpu::compact_tables_that_grow gpu::spilling gpu::tables_that_grow gpu::compact_roots gpu_partitioned::compact \
  gpu::auto_storage gpu::small_mcc gpu::specs_match > /tmp/tests.txt 2>&1
echo "tests rc $?"
grep -E "^test |test result" /tmp/tests.txt
grep -E -A12 "^---- |panicked" /tmp/tests.txt | head -60
cp /tmp/tests.txt "$out/tests-e.txt"
echo "took $(( $(date +%s) - start )) s"; date -u
