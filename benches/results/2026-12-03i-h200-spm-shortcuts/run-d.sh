#!/usr/bin/env bash
# Device call D (session 30), issue 15: with shortcuts, the vertices that
# no move reaches (those inside the skipped chains) are held until their
# player's other measures are at their fixpoint and then lifted once
# (`HELD`, `spm_queue_unreached`), as on the CPU. First the GPU tests of
# parity on this build (`new`); then, per game, SPM on the GPU with
# shortcuts by call C's build (`c`) and this one, this one without
# shortcuts, and Oink's `--spm`, one process each, kernels compiled
# before the timed runs.
# Carried: .device/s30 (the builds, the test binary, Oink 0a4a37f with
# Lace v1.4.1 and its Boost library, ../shared/parity).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/shared
exec > >(tee "$out/run-d.txt") 2>&1
d=.device/s30
start=$(date +%s)
nvidia-smi -L; nproc; date -u; cat $d/BUILD
for f in warpcheck warpcheck-c tests; do xz -dc $d/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
tar -C /tmp/shared -xJf $d/parity.tar.xz
cp /tmp/bin/tests .device/tests
echo "== GPU tests: parity $(date -u +%T)"
WARPCHECK_KERNEL_CACHE=/tmp/kc-new WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/warpcheck \
  timeout 300 bash scripts/gpu_test.sh parity_gpu:: 2>&1 \
  | grep -E -A3 "^test |test result|panicked|assert|SKIPPED|not the cpu|did not finish" | grep -v "^\s*$" | head -150
echo "tests took $(( $(date +%s) - start )) s"
export LD_LIBRARY_PATH=$d/lib
field() { grep -E "\"($1)\"" | tr -d '\n' | tr -s ' '; }
solve() {  # label binary game limit [args...]
  local label=$1 bin=$2 g=$3 limit=$4 r
  shift 4
  r=$(WARPCHECK_KERNEL_CACHE=/tmp/kc-$bin timeout $((limit + 5)) /tmp/bin/$bin --quiet --format json parity $g \
      --engine gpu --solver spm --timeout $limit "$@")
  echo "$(basename $g) $label: rc=$? $(echo "$r" | field 'solve_seconds|won_by_even|error')"
}
lifts() {  # label binary game limit [args...]
  local label=$1 bin=$2 g=$3 limit=$4
  shift 4
  WARPCHECK_KERNEL_CACHE=/tmp/kc-$bin RUST_LOG=warpcheck=debug timeout $((limit + 5)) /tmp/bin/$bin --quiet parity $g \
    --engine gpu --solver spm --timeout $limit "$@" 2>&1 | grep -E "small progress" | sed "s/^/$(basename $g) $label debug: /"
}
for b in warpcheck warpcheck-c; do solve warm-up $b /tmp/shared/parity/tc-10.pg 20 > /dev/null; done
for n in syntcomp-genbuf2.pg.gz pgrand-200k-s11.pg.gz tc-10.pg; do
  g=/tmp/shared/parity/$n
  echo "== $n $(date -u +%T)"
  for round in 1 2; do
    solve "gpu c --shortcuts" warpcheck-c $g 30 --shortcuts
    solve "gpu new --shortcuts" warpcheck $g 30 --shortcuts
  done
  solve "gpu new" warpcheck $g 30
  lifts "gpu new --shortcuts" warpcheck $g 30 --shortcuts
  echo "$n oink spm: $(timeout 35 $d/oink --spm -z 30 $g 2>&1 | grep -E 'total solving time|lifts' | tr -s ' ' | tr '\n' '|')"
done
echo "took $(( $(date +%s) - start )) s"; date -u
