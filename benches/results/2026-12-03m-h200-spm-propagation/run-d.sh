#!/usr/bin/env bash
# Device call D (session 33), issue 15: the final build. First every
# parity GPU test (scripts' usual set, `parity_gpu::`) on the final
# binaries; then GPU SPM without preprocessing on the propagation games,
# rounds of: call A's build (`a`), the final build (`final`), Oink's SPM
# without preprocessing; then pgrand-200k-s11 and tc-10 (GPU SPM with the
# usual preprocessing, both builds, and Oink's --spm) against regressions;
# then, with time left, ncu on three `spm_lift` launches of prop50_1k.
# Carried: .device/s33 (call A's build, generator, Oink), .device/s33d
# (final build and test binary, ../shared/parity).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/g /tmp/shared
exec > >(tee "$out/run-d.txt") 2>&1
d=.device/s33
f=.device/s33d
start=$(date +%s)
nvidia-smi -L; nproc; date -u; cat $f/BUILD
xz -dc $d/warpcheck.xz > /tmp/bin/a; xz -dc $f/warpcheck.xz > /tmp/bin/final; xz -dc $f/tests.xz > /tmp/bin/tests
chmod +x /tmp/bin/*
tar -C /tmp/shared -xJf $f/parity.tar.xz
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kc
WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/final timeout 330 /tmp/bin/tests --include-ignored --test-threads=1 parity_gpu:: 2>&1 \
  | grep -E -A3 "^test |test result|panicked|assert|SKIPPED" | grep -v "^\s*$" | head -80
echo "tests took $(( $(date +%s) - start )) s"
g=$d/gen/parity_propagation
$g paths 50 1000 > /tmp/g/prop50_1k.pg
$g tree 22 2 > /tmp/g/tprop21.pg
$g paths 1000 1000 > /tmp/g/prop1000_1k.pg
$g tree 24 2 > /tmp/g/tprop23.pg
zcat /tmp/shared/parity/pgrand-200k-s11.pg.gz > /tmp/g/pgrand-200k-s11.pg 2>/dev/null || cp /tmp/shared/parity/pgrand-200k-s11.pg /tmp/g/
cp /tmp/shared/parity/tc-10.pg /tmp/g/
field() { python3 -c "import json,sys; r=json.load(sys.stdin); print(' '.join(str(r.get(k)) for k in sys.argv[1:]))" "$@"; }
for v in a final; do /tmp/bin/$v parity /tmp/g/prop50_1k.pg --engine gpu --solver spm --no-preprocessing -q > /dev/null; done
for name in prop50_1k tprop21 prop1000_1k tprop23; do
  f=/tmp/g/$name.pg
  echo "== $name"
  echo "final, verified: $(/tmp/bin/final --format json parity $f --engine gpu --solver spm --no-preprocessing --verify -q | field won_by_even verified solve_seconds)"
  for round in 1 2 3; do
    for v in a final; do
      echo "$v: $(/tmp/bin/$v --format json parity $f --engine gpu --solver spm --no-preprocessing -q | field won_by_even solve_seconds)"
    done
    (( round < 3 )) && echo "oink: $($d/oink --spm --no-wcwc --no-single $f 2>&1 | grep -E 'total solving time' | tr '\n' ' ')"
  done
  echo "final debug: $(/tmp/bin/final parity $f --engine gpu --solver spm --no-preprocessing -vv 2>&1 | grep -E 'DEBUG warpcheck::parity::gpu:' | sed 's/.*DEBUG//' | tr '\n' ' ')"
  echo "took $(( $(date +%s) - start )) s so far"
done
for name in pgrand-200k-s11 tc-10; do
  f=/tmp/g/$name.pg
  echo "== $name"
  for round in 1 2; do
    for v in a final; do
      echo "$v: $(/tmp/bin/$v --format json parity $f --engine gpu --solver spm -q | field won_by_even solve_seconds)"
    done
  done
  echo "oink: $($d/oink --spm $f 2>&1 | grep -E 'total solving time' | tr '\n' ' ')"
done
echo "took $(( $(date +%s) - start )) s so far"
if (( $(date +%s) - start < 420 )); then
  echo "== ncu spm_lift on prop50_1k"
  timeout 120 ncu --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
    --section SourceCounters -k spm_lift --launch-skip 300 --launch-count 3 -f -o /tmp/prof \
    /tmp/bin/final parity /tmp/g/prop50_1k.pg --engine gpu --solver spm --no-preprocessing -q 2>&1 | tail -3
  ncu -i /tmp/prof.ncu-rep --page details --csv > "$out/details-prop50_1k.csv" 2>&1
  ncu -i /tmp/prof.ncu-rep --page source --csv --print-source cuda,sass 2>/dev/null | xz -9 > "$out/source-prop50_1k.csv.xz"
  grep -E '"(Duration|Achieved Occupancy|Registers Per Thread|Grid Size|Warp Cycles Per Issued Instruction|L2 Hit Rate|Memory Throughput)"' "$out/details-prop50_1k.csv" | cut -d, -f1,5,12- | head -30
fi
date -u
