#!/usr/bin/env bash
# Call F (session 40): the branch jump-grows-at-spill at 244f9911 (`jump`
# CLI, `jtests` test binary: a frontier longer than a growing table's queue
# moves only where spills are walked) with two kernel trees swapped in by
# WARPCHECK_KERNEL_DIR: kv/pft2 (244f9911's: prefetch_home and
# tree-words-2) and kv/dp (+ a warp claims two queue chunks at once and
# L2 fetches the second's slots while it expands the first); main's CLI
# (`final`, a5dc0296) beside them.
# (1) the three nets under trees without traces, main then each kernel tree;
# (2) AutoFlight-PT-06a plain, pft2 against dp (dp touches plain);
# (3) dp if its three nets take at least 1 % less than pft2's, else pft2:
# Parking-PT-208 with traces, then the GPU tests of every storage and
# frontier on it, in the time left.
# Carry .device/s40 and set D=.device/s40.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
d=${D:?set D to the carried folder}
mkdir -p "$out/json" /tmp/bin /tmp/shared
exec > >(tee "$out/run-f.txt") 2>&1
start=$(date +%s)
nvidia-smi -L; date -u; cat $d/BUILD
for b in final jump jtests; do xz -dc $d/$b.xz > /tmp/bin/$b; done
chmod +x /tmp/bin/*
tar -C /tmp/shared --strip-components=1 -xJf $d/mcc3.tar.xz
export WARPCHECK_KERNEL_CACHE=/tmp/kc NCCL_NVLS_ENABLE=0
field() { python3 -c "import json,sys; r=json.load(sys.stdin); print('\t'.join(str(r.get(k)) for k in sys.argv[1:]))" "$@"; }
run() { # kernels storage traces|no-trace model
  local name="$1-$2-$3-$4"
  printf '%s\t%s\t%s\t%s\t' "$1" "$2" "$3" "$4"
  local bin=jump kernels=(WARPCHECK_KERNEL_DIR=$d/kv/$1)
  if [[ $1 == main ]]; then bin=final; kernels=(); fi
  env "${kernels[@]}" timeout 120 /tmp/bin/$bin check -v --engine gpu --gpus 1 \
    $([[ $3 == no-trace ]] && echo --no-trace) --deadlock --all --format json --storage $2 \
    /tmp/shared/mcc/$4/model.pnml > "$out/json/$name.json" 2> "$out/json/$name.err"
  field states search_seconds states_per_second bytes_per_state memory_bytes exit_code < "$out/json/$name.json"
}
for model in AutoFlight-PT-06a Parking-PT-208 Philosophers-PT-000020; do
  for k in main pft2 dp; do run $k tree no-trace $model; done
  echo "at $(( $(date +%s) - start )) s"
done | tee /tmp/trees.txt
for k in pft2 dp; do run $k plain no-trace AutoFlight-PT-06a; done
best=$(awk -F'\t' '$1 != "main" {t[$1]+=($5>0 ? $6 : 1e9)} END {print (t["dp"] <= 0.99 * t["pft2"]) ? "dp" : "pft2"}' <(grep -v '^at ' /tmp/trees.txt))
echo "chosen: $best"
run $best tree traces Parking-PT-208
left=$(( 570 - ($(date +%s) - start) ))
echo "at $(( $(date +%s) - start )) s; tests on kv/$best get $left s"
WARPCHECK_KERNEL_DIR=$d/kv/$best WARPCHECK_BIN=/tmp/bin/jump timeout $left /tmp/bin/jtests --include-ignored --test-threads=1 \
  gpu::compact_tables_that_grow gpu::spilling gpu::tables_that_grow gpu::compact_roots gpu_partitioned::compact \
  gpu::auto_storage gpu::small_mcc gpu::specs_match > /tmp/tests.txt 2>&1
echo "tests rc $?"
grep -E "^test |test result" /tmp/tests.txt
grep -E -A12 "^---- |panicked" /tmp/tests.txt | head -60
cp /tmp/tests.txt "$out/tests-f.txt"
echo "took $(( $(date +%s) - start )) s"; date -u
