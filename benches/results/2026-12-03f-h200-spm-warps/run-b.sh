#!/usr/bin/env bash
# Device call B (session 29), issue 15: the final build, where a tile of
# lanes lifts a vertex (as many as a measure has components, a power of
# two up to 32: `parity::gpu::tile_lanes`) instead of a whole warp
# (call A's kernels, kv/warp). GPU tests of parity first; then
# `--engine gpu --solver spm` with the built-in kernels twice, kv/warp and
# kv/old (2eb6926c's thread per vertex) once each, all by the same binary,
# and Oink's `--spm` once. syntcomp-genbuf2 has measures of about 2
# components (tiles of 2 lanes), tc-10 about 21 and counter_dp-20 about
# 12 (tiles of 32 and 16), pgrand-200k-s11 100 and 101 (32).
# Carried: .device/s29.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/shared
exec > >(tee "$out/run-b.txt") 2>&1
d=.device/s29
start=$(date +%s)
nvidia-smi -L; nproc; date -u; cat $d/BUILD
for f in warpcheck tests; do xz -dc $d/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
tar -C /tmp/shared -xJf $d/parity.tar.xz
cp /tmp/bin/tests .device/tests
echo "== GPU tests: parity $(date -u +%T)"
WARPCHECK_KERNEL_CACHE=/tmp/kc WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/warpcheck \
  timeout 300 bash scripts/gpu_test.sh parity_gpu:: 2>&1 \
  | grep -E -A3 "^test |test result|panicked|assert|SKIPPED" | grep -v "^\s*$" | head -150
echo "tests took $(( $(date +%s) - start )) s"
export LD_LIBRARY_PATH=$d/lib
field() { grep -E "\"($1)\"" | tr -d '\n' | tr -s ' '; }
spm() {  # label kernel-dir game limit
  local label=$1 dir=$2 g=$3 limit=${4:-20} r
  r=$(WARPCHECK_KERNEL_DIR=$dir WARPCHECK_KERNEL_CACHE=/tmp/kc-$label timeout $((limit + 5)) /tmp/bin/warpcheck --quiet \
      --format json parity $g --engine gpu --solver spm --timeout $limit)
  echo "$(basename $g) $label gpu spm: rc=$? $(echo "$r" | field 'solve_seconds|won_by_even|error')"
}
# Compile each tree's kernels once, on a small game, before timing.
for t in warp old; do spm $t $PWD/$d/kv/$t /tmp/shared/parity/tc-10.pg 20 > /dev/null; done
spm tiles "" /tmp/shared/parity/syntcomp-genbuf2.pg.gz > /dev/null
for n in syntcomp-genbuf2.pg.gz pgrand-200k-s11.pg.gz tc-10.pg; do
  g=/tmp/shared/parity/$n
  echo "== $n $(date -u +%T)"
  spm tiles "" $g
  spm tiles "" $g
  spm warp $PWD/$d/kv/warp $g
  spm old $PWD/$d/kv/old $g
  WARPCHECK_KERNEL_CACHE=/tmp/kc-tiles RUST_LOG=warpcheck=debug timeout 25 /tmp/bin/warpcheck --quiet parity $g \
    --engine gpu --solver spm --timeout 20 2>&1 | grep -E "small progress|preprocessing, then" | sed "s/^/$n debug: /"
  echo "$n oink spm: $(timeout 35 $d/oink --spm -z 30 $g 2>&1 | grep -E 'total solving time|lifts' | tr -s ' ' | tr '\n' '|')"
done
echo "== counter_dp-20.pg $(date -u +%T)"
(( $(date +%s) - start < 400 )) && spm tiles "" /tmp/shared/parity/counter_dp-20.pg 40
echo "took $(( $(date +%s) - start )) s"; date -u
