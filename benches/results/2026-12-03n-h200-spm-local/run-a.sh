#!/usr/bin/env bash
# Device call A (session 34), issue 15: GPU SPM with blocks lifting their
# own ranges of vertices (spm_lift_local) and NVRTC kept loaded, against
# session 33's final build (ab8c532c, `before`). First the benchmarks:
# rounds of before / now on the propagation games without preprocessing
# (Oink's SPM without its preprocessing beside prop50_1k and tc-10), and
# pgrand-200k-s11 and tc-10 with the usual preprocessing; the debug line of
# each build (set-up, loading, launches of each kind). Then every parity
# GPU test on the new binaries.
# Carried: .device/s33 (generator, Oink and its libraries), .device/s33d
# (before, ../shared/parity), .device/s34a (this build and its tests).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/g /tmp/shared
exec > >(tee "$out/run-a.txt") 2>&1
d=.device/s33
b=.device/s33d
n=.device/s34a
start=$(date +%s)
nvidia-smi -L; nproc; date -u; cat $n/BUILD
xz -dc $b/warpcheck.xz > /tmp/bin/before; xz -dc $n/warpcheck.xz > /tmp/bin/now; xz -dc $n/tests.xz > /tmp/bin/tests
chmod +x /tmp/bin/*
tar -C /tmp/shared -xJf $b/parity.tar.xz
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kc
g=$d/gen/parity_propagation
$g paths 50 1000 > /tmp/g/prop50_1k.pg
$g paths 1000 1000 > /tmp/g/prop1000_1k.pg
$g tree 22 2 > /tmp/g/tprop21.pg
zcat /tmp/shared/parity/pgrand-200k-s11.pg.gz > /tmp/g/pgrand-200k-s11.pg 2>/dev/null || cp /tmp/shared/parity/pgrand-200k-s11.pg /tmp/g/
cp /tmp/shared/parity/tc-10.pg /tmp/g/
field() { python3 -c "import json,sys; r=json.load(sys.stdin); print(' '.join(str(r.get(k)) for k in sys.argv[1:]))" "$@"; }
debug() { "$@" -vv 2>&1 | grep -E 'DEBUG warpcheck::parity::gpu:' | sed 's/.*DEBUG//' | tr '\n' ' '; }
# Fill each build's kernel cache.
for v in before now; do /tmp/bin/$v parity /tmp/g/prop50_1k.pg --engine gpu --solver spm --no-preprocessing -q > /dev/null; done
for name in prop50_1k prop1000_1k tprop21; do
  f=/tmp/g/$name.pg
  echo "== $name"
  echo "now, verified: $(/tmp/bin/now --format json parity $f --engine gpu --solver spm --no-preprocessing --verify -q | field won_by_even verified solve_seconds)"
  for round in 1 2 3; do
    for v in before now; do
      echo "$v: $(/tmp/bin/$v --format json parity $f --engine gpu --solver spm --no-preprocessing -q | field won_by_even solve_seconds)"
    done
    [[ $name == prop50_1k ]] && (( round < 3 )) && echo "oink: $($d/oink --spm --no-wcwc --no-single $f 2>&1 | grep -E 'total solving time' | tr '\n' ' ')"
  done
  for v in before now; do echo "$v debug: $(debug /tmp/bin/$v parity $f --engine gpu --solver spm --no-preprocessing)"; done
  echo "took $(( $(date +%s) - start )) s so far"
done
for name in pgrand-200k-s11 tc-10; do
  f=/tmp/g/$name.pg
  echo "== $name"
  echo "now, verified: $(/tmp/bin/now --format json parity $f --engine gpu --solver spm --verify -q | field won_by_even verified solve_seconds)"
  for round in 1 2; do
    for v in before now; do
      echo "$v: $(/tmp/bin/$v --format json parity $f --engine gpu --solver spm -q | field won_by_even solve_seconds)"
    done
    echo "oink: $($d/oink --spm $f 2>&1 | grep -E 'total solving time' | tr '\n' ' ')"
  done
  for v in before now; do echo "$v debug: $(debug /tmp/bin/$v parity $f --engine gpu --solver spm)"; done
done
echo "benchmarks took $(( $(date +%s) - start )) s"
WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/now timeout $(( 560 - ($(date +%s) - start) )) /tmp/bin/tests --include-ignored --test-threads=1 parity_gpu:: 2>&1 \
  | grep -E -A3 "^test |test result|panicked|assert|SKIPPED" | grep -v "^\s*$" | head -80
echo "all took $(( $(date +%s) - start )) s"
date -u
