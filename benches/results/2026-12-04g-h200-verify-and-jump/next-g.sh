#!/usr/bin/env bash
# Prepared in session 40, NOT YET RUN (call F, its first form, got no answer
# from the device): verify the branch jump-grows-at-spill before it lands.
# Build on the branch (11bd8cc4 or later): strip and xz its CLI (`jump`) and
# its integration test binary (`jtests`) into .device/sNN, main's CLI as
# `final`, and mcc3.tar.xz (shared/mcc's AutoFlight-PT-05a and -06a,
# Parking-PT-208, Philosophers-PT-000020 with their oracles); write BUILD;
# carry .device/sNN and set D=.device/sNN. The kernels are the binaries'
# own (no WARPCHECK_KERNEL_DIR).
# (1) the three nets under trees without traces, main then the branch;
# (2) AutoFlight-PT-06a plain, main then the branch (prefetch_home);
# (3) Parking-PT-208 with traces on the branch; (4) the branch's GPU tests of
# every storage and frontier, in the time left (about 315 s).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
d=${D:?set D to the carried folder}
mkdir -p "$out/json" /tmp/bin /tmp/shared
exec > >(tee "$out/next-g.txt") 2>&1
start=$(date +%s)
nvidia-smi -L; date -u; cat $d/BUILD
for b in final jump jtests; do xz -dc $d/$b.xz > /tmp/bin/$b; done
chmod +x /tmp/bin/*
tar -C /tmp/shared --strip-components=1 -xJf $d/mcc3.tar.xz
export WARPCHECK_KERNEL_CACHE=/tmp/kc NCCL_NVLS_ENABLE=0
field() { python3 -c "import json,sys; r=json.load(sys.stdin); print('\t'.join(str(r.get(k)) for k in sys.argv[1:]))" "$@"; }
run() { # binary storage traces|no-trace model
  local name="$1-$2-$3-$4"
  printf '%s\t%s\t%s\t%s\t' "$1" "$2" "$3" "$4"
  timeout 120 /tmp/bin/$1 check -v --engine gpu --gpus 1 \
    $([[ $3 == no-trace ]] && echo --no-trace) --deadlock --all --format json --storage $2 \
    /tmp/shared/mcc/$4/model.pnml > "$out/json/$name.json" 2> "$out/json/$name.err"
  field states search_seconds states_per_second bytes_per_state memory_bytes exit_code < "$out/json/$name.json"
}
for model in AutoFlight-PT-06a Parking-PT-208 Philosophers-PT-000020; do
  for b in final jump; do run $b tree no-trace $model; done
  echo "at $(( $(date +%s) - start )) s"
done
for b in final jump; do run $b plain no-trace AutoFlight-PT-06a; done
run jump tree traces Parking-PT-208
left=$(( 570 - ($(date +%s) - start) ))
echo "at $(( $(date +%s) - start )) s; tests get $left s"
WARPCHECK_BIN=/tmp/bin/jump timeout $left /tmp/bin/jtests --include-ignored --test-threads=1 \
  gpu::compact_tables_that_grow gpu::spilling gpu::tables_that_grow gpu::compact_roots gpu_partitioned::compact \
  gpu::auto_storage gpu::small_mcc gpu::specs_match > /tmp/tests.txt 2>&1
echo "tests rc $?"
grep -E "^test |test result" /tmp/tests.txt
grep -E -A12 "^---- |panicked" /tmp/tests.txt | head -60
cp /tmp/tests.txt "$out/tests-g.txt"
echo "took $(( $(date +%s) - start )) s"; date -u
