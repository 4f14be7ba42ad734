#!/usr/bin/env bash
# Device call B (session 31), issue 15: the GPU tests of parity on the
# session's build (spm.cu's two predecessor loops share one, and no
# copy of the targets is uploaded as first steps when no move skips a
# vertex); SPM on the GPU by the build before (`old`, 39b69fd1) and
# this one, with and without shortcuts; then `auto` against Oink's
# fastest on pgrand-200k-s11 and counter_qpt 500000 (bench.sh).
# Carried: .device/s31 (the build, Oink 0a4a37f with Lace v1.4.1 and its
# Boost library, Oink's counter generators) and .device/s31t (the build
# before, the test binary, ../shared/parity).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
here=$(dirname "$0")
mkdir -p "$out" /tmp/bin /tmp/shared /tmp/g
exec > >(tee "$out/run-b.txt") 2>&1
d=.device/s31 t=.device/s31t
start=$(date +%s)
nvidia-smi -L; nproc; date -u; cat $d/BUILD
xz -dc $d/warpcheck.xz > /tmp/bin/warpcheck
for f in old tests; do xz -dc $t/$f.xz > /tmp/bin/$f; done
chmod +x /tmp/bin/*
tar -C /tmp/shared -xJf $t/parity.tar.xz
cp /tmp/bin/tests .device/tests
zcat /tmp/shared/parity/pgrand-200k-s11.pg.gz > /tmp/g/pgrand-200k-s11.pg
$d/gen/counter_qpt 500000 > /tmp/g/counter_qpt-500000.pg
echo "== GPU tests: parity $(date -u +%T)"
WARPCHECK_KERNEL_CACHE=/tmp/kc-warpcheck WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/warpcheck \
  timeout 360 bash scripts/gpu_test.sh parity_gpu:: 2>&1 \
  | grep -E -A3 "^test |test result|panicked|assert|SKIPPED|not the cpu|did not finish" | grep -v "^\s*$" | head -150
echo "tests took $(( $(date +%s) - start )) s"
spm() {  # label binary game [args...]
  local label=$1 bin=$2 g=$3 r
  shift 3
  r=$(WARPCHECK_KERNEL_CACHE=/tmp/kc-$bin timeout 35 /tmp/bin/$bin --quiet --format json parity $g \
      --engine gpu --solver spm --timeout 30 "$@")
  echo "$(basename $g) $label: rc=$? $(echo "$r" | grep -E '"(solve_seconds|won_by_even|error)"' | tr -d '\n' | tr -s ' ')"
}
spm warm-up old /tmp/shared/parity/tc-10.pg > /dev/null
for n in syntcomp-genbuf2.pg.gz pgrand-200k-s11.pg.gz tc-10.pg; do
  for round in 1 2; do
    for b in old warpcheck; do
      spm "gpu $b" $b /tmp/shared/parity/$n
      spm "gpu $b --shortcuts" $b /tmp/shared/parity/$n --shortcuts
    done
  done
done
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kc-warpcheck
source $here/bench.sh
bench pgrand-200k-s11 7
bench counter_qpt-500000 7
echo "took $(( $(date +%s) - start )) s"; date -u
