#!/usr/bin/env bash
# Device call C (session 30), issue 15: the final build (`new`), where
# only with shortcuts a raised measure flags just the predecessors whose
# move reads the components that changed (call B's filter, kept for
# shortcuts). First the GPU tests of parity; then, per game, SPM on the
# GPU by the build before the session (`old`, 6fe34394) and this one
# without shortcuts, this one with them, the CPU's SPM of this build
# with and without, and Oink's `--spm`, one process each, kernels
# compiled before the timed runs.
# Carried: .device/s30 (the builds, the test binary, Oink 0a4a37f with
# Lace v1.4.1 and its Boost library, ../shared/parity).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/shared
exec > >(tee "$out/run-c.txt") 2>&1
d=.device/s30
start=$(date +%s)
nvidia-smi -L; nproc; date -u; cat $d/BUILD
for f in warpcheck warpcheck-old tests; do xz -dc $d/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
tar -C /tmp/shared -xJf $d/parity.tar.xz
cp /tmp/bin/tests .device/tests
echo "== GPU tests: parity $(date -u +%T)"
WARPCHECK_KERNEL_CACHE=/tmp/kc-new WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/warpcheck \
  timeout 360 bash scripts/gpu_test.sh parity_gpu:: 2>&1 \
  | grep -E -A3 "^test |test result|panicked|assert|SKIPPED|not the cpu|did not finish" | grep -v "^\s*$" | head -150
echo "tests took $(( $(date +%s) - start )) s"
export LD_LIBRARY_PATH=$d/lib
field() { grep -E "\"($1)\"" | tr -d '\n' | tr -s ' '; }
solve() {  # label binary engine game limit [args...]
  local label=$1 bin=$2 engine=$3 g=$4 limit=$5 r
  shift 5
  r=$(WARPCHECK_KERNEL_CACHE=/tmp/kc-$bin timeout $((limit + 5)) /tmp/bin/$bin --quiet --format json parity $g \
      --engine $engine --solver spm --timeout $limit "$@")
  echo "$(basename $g) $label: rc=$? $(echo "$r" | field 'solve_seconds|won_by_even|error')"
}
lifts() {  # label binary engine game limit [args...]
  local label=$1 bin=$2 engine=$3 g=$4 limit=$5
  shift 5
  WARPCHECK_KERNEL_CACHE=/tmp/kc-$bin RUST_LOG=warpcheck=debug timeout $((limit + 5)) /tmp/bin/$bin --quiet parity $g \
    --engine $engine --solver spm --timeout $limit "$@" 2>&1 | grep -E "small progress" | sed "s/^/$(basename $g) $label debug: /"
}
# Compile each build's kernels once before timing.
for b in warpcheck warpcheck-old; do solve warm-up $b gpu /tmp/shared/parity/tc-10.pg 20 > /dev/null; done
for n in syntcomp-genbuf2.pg.gz pgrand-200k-s11.pg.gz tc-10.pg; do
  g=/tmp/shared/parity/$n
  echo "== $n $(date -u +%T)"
  for round in 1 2; do
    solve "gpu old" warpcheck-old gpu $g 30
    solve "gpu new" warpcheck gpu $g 30
    solve "gpu new --shortcuts" warpcheck gpu $g 30 --shortcuts
  done
  solve "cpu new" warpcheck cpu $g 30
  solve "cpu new --shortcuts" warpcheck cpu $g 30 --shortcuts
  lifts "gpu new" warpcheck gpu $g 30
  lifts "gpu new --shortcuts" warpcheck gpu $g 30 --shortcuts
  echo "$n oink spm: $(timeout 35 $d/oink --spm -z 30 $g 2>&1 | grep -E 'total solving time|lifts' | tr -s ' ' | tr '\n' '|')"
done
if (( $(date +%s) - start < 360 )); then
  g=/tmp/shared/parity/tc-12.pg
  echo "== tc-12.pg $(date -u +%T)"
  solve "gpu new --shortcuts" warpcheck gpu $g 40 --shortcuts
  solve "cpu new" warpcheck cpu $g 40
  solve "cpu new --shortcuts" warpcheck cpu $g 40 --shortcuts
  echo "tc-12.pg oink spm: $(timeout 35 $d/oink --spm -z 30 $g 2>&1 | grep -E 'total solving time|lifts' | tr -s ' ' | tr '\n' '|')"
fi
echo "took $(( $(date +%s) - start )) s"; date -u
