#!/usr/bin/env bash
# Device call A (session 29), issue 15: SPM on the GPU with a warp per
# vertex and measures row by row (kernels/parity/spm.cu). First the GPU
# tests of parity (the GPU's solution must equal the CPU's); then
# `--engine gpu --solver spm` with the new kernels (built in) twice, the
# old ones (kv/old: 2eb6926c's spm.cu, a thread per vertex, column-wise
# measures) once, run by the same binary, with Oink's `--spm` beside them,
# on the games of ../shared/parity where Oink's SPM lifts most.
# Carried: .device/s29 (build, old kernel tree, Oink 0a4a37f with Lace
# v1.4.1 and its Boost library, ../shared/parity as parity.tar.xz).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/shared
exec > >(tee "$out/run-a.txt") 2>&1
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
spm() {  # label kernel-dir game
  local label=$1 dir=$2 g=$3 r
  r=$(WARPCHECK_KERNEL_DIR=$dir WARPCHECK_KERNEL_CACHE=/tmp/kc-$label timeout 25 /tmp/bin/warpcheck --quiet --format json \
      parity $g --engine gpu --solver spm --timeout 20)
  echo "$(basename $g) $label gpu spm: rc=$? $(echo "$r" | field 'solve_seconds|won_by_even')"
}
for n in syntcomp-genbuf2.pg.gz tc-10.pg pgrand-200k-s11.pg.gz tc-12.pg counter_dp-20.pg; do
  g=/tmp/shared/parity/$n
  echo "== $n $(date -u +%T)"
  spm new "" $g
  spm new "" $g
  WARPCHECK_KERNEL_CACHE=/tmp/kc-new RUST_LOG=warpcheck=debug timeout 25 /tmp/bin/warpcheck --quiet parity $g \
    --engine gpu --solver spm --timeout 20 2>&1 | grep -E "small progress|preprocessing, then" | sed "s/^/$n debug: /"
  case $n in tc-12.pg|counter_dp-20.pg) ;; *) spm old $PWD/$d/kv/old $g ;; esac
  case $n in counter_dp-20.pg) ;; *)
    echo "$n oink spm: $(timeout 35 $d/oink --spm -z 30 $g 2>&1 | grep -E 'total solving time|lifts' | tr -s ' ' | tr '\n' '|')" ;;
  esac
  (( $(date +%s) - start > 500 )) && { echo "out of time"; break; }
done
echo "took $(( $(date +%s) - start )) s"; date -u
