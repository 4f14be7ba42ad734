#!/usr/bin/env bash
# Device call A (session 35), issue 15: GPU SPM with heavy vertices lifted
# by a whole warp and lanes that choose among moves of their own (`after`)
# against the build before it (27cfbba1, `before`), on the propagation
# games without preprocessing (Oink's SPM without its preprocessing
# beside), then pgrand-200k-s11, tc-10 and syntcomp-genbuf2 with the usual
# preprocessing (Oink's --spm beside); the debug lines of both builds.
# Then every parity GPU test on `after`.
# Carried: .device/s35 (before, after, tests, generator, Oink and its
# libraries, ../shared/parity).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/g /tmp/shared
exec > >(tee "$out/run-a.txt") 2>&1
d=.device/s35
start=$(date +%s)
nvidia-smi -L; nproc; date -u
for v in before after tests; do xz -dc $d/$v.xz > /tmp/bin/$v; done
chmod +x /tmp/bin/*
tar -C /tmp/shared -xJf $d/parity.tar.xz
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kc
g=$d/gen/parity_propagation
$g paths 50 1000 > /tmp/g/prop50_1k.pg
$g paths 1000 1000 > /tmp/g/prop1000_1k.pg
$g tree 22 2 > /tmp/g/tprop21.pg
$g tree 24 2 > /tmp/g/tprop23.pg
zcat /tmp/shared/parity/pgrand-200k-s11.pg.gz > /tmp/g/pgrand-200k-s11.pg
zcat /tmp/shared/parity/syntcomp-genbuf2.pg.gz > /tmp/g/syntcomp-genbuf2.pg
cp /tmp/shared/parity/tc-10.pg /tmp/g/
field() { python3 -c "import json,sys; r=json.load(sys.stdin); print(' '.join(str(r.get(k)) for k in sys.argv[1:]))" "$@"; }
debug() { "$@" -vv 2>&1 | grep -E 'DEBUG warpcheck::parity::gpu:' | sed 's/.*DEBUG//' | tr '\n' ' '; }
oink() { timeout 120 $d/oink "$@" 2>&1 | grep -E 'total solving time' | tr '\n' ' '; }
builds="before after"
# Fill each build's kernel cache.
for v in $builds; do /tmp/bin/$v parity /tmp/g/prop50_1k.pg --engine gpu --solver spm --no-preprocessing -q > /dev/null; done
for name in prop50_1k prop1000_1k tprop21 tprop23; do
  f=/tmp/g/$name.pg
  echo "== $name"
  echo "after, verified: $(/tmp/bin/after --format json parity $f --engine gpu --solver spm --no-preprocessing --verify -q | field won_by_even verified solve_seconds)"
  rounds=3; [[ $name == prop50_1k ]] && rounds=5
  for round in $(seq $rounds); do
    for v in $builds; do
      echo "$v: $(/tmp/bin/$v --format json parity $f --engine gpu --solver spm --no-preprocessing -q | field won_by_even solve_seconds)"
    done
    case $name in
      prop50_1k) (( round <= 3 )) && echo "oink: $(oink --spm --no-wcwc --no-single $f)" ;;
      prop1000_1k|tprop21) (( round == 1 )) && echo "oink: $(oink --spm --no-wcwc --no-single $f)" ;;
    esac
  done
  for v in $builds; do echo "$v debug: $(debug /tmp/bin/$v parity $f --engine gpu --solver spm --no-preprocessing)"; done
  echo "took $(( $(date +%s) - start )) s so far"
done
for name in pgrand-200k-s11 tc-10 syntcomp-genbuf2; do
  f=/tmp/g/$name.pg
  echo "== $name"
  echo "after, verified: $(/tmp/bin/after --format json parity $f --engine gpu --solver spm --verify -q | field won_by_even verified solve_seconds)"
  for round in 1 2; do
    for v in $builds; do
      echo "$v: $(/tmp/bin/$v --format json parity $f --engine gpu --solver spm -q | field won_by_even solve_seconds)"
    done
    echo "oink: $(oink --spm $f)"
  done
  for v in $builds; do echo "$v debug: $(debug /tmp/bin/$v parity $f --engine gpu --solver spm)"; done
done
echo "benchmarks took $(( $(date +%s) - start )) s"
WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/after timeout $(( 585 - ($(date +%s) - start) )) /tmp/bin/tests --include-ignored --test-threads=1 parity_gpu:: > /tmp/tests.txt 2>&1
grep -E "^test |test result" /tmp/tests.txt
grep -E -A12 "^---- |panicked" /tmp/tests.txt | head -60
cp /tmp/tests.txt "$out/tests-a.txt"
echo "all took $(( $(date +%s) - start )) s"
date -u
