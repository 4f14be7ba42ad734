#!/usr/bin/env bash
# Device call D (session 35), issue 15: the final build (`final`: heavy
# vertices lifted by a whole warp in the grid-wide launches, lanes that
# choose among moves of their own where a vertex has more moves than its
# tile has lanes, spm_lift_queue as before) against 27cfbba1 (`before`):
# the propagation games without preprocessing (Oink's SPM without its
# preprocessing beside), pgrand-200k-s11, tc-10 and syntcomp-genbuf2 with
# the usual preprocessing (Oink's --spm beside); each build's debug line.
# Then every parity GPU test on `final`.
# Carried: .device/s35 (before, final, tests, generator, Oink and its
# libraries, ../shared/parity).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/g /tmp/shared
exec > >(tee "$out/run-d.txt") 2>&1
d=.device/s35
start=$(date +%s)
nvidia-smi -L; nproc; date -u
for v in before final tests; do xz -dc $d/$v.xz > /tmp/bin/$v; done
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
builds="before final"
for v in $builds; do /tmp/bin/$v parity /tmp/g/prop50_1k.pg --engine gpu --solver spm --no-preprocessing -q > /dev/null; done
run() { # name rounds oink-rounds flags...
  local name=$1 rounds=$2 oinks=$3; shift 3
  local f=/tmp/g/$name.pg
  local oflags="--spm"; [[ " $* " == *" --no-preprocessing "* ]] && oflags="--spm --no-wcwc --no-single"
  echo "== $name"
  echo "final, verified: $(/tmp/bin/final --format json parity $f --engine gpu --solver spm "$@" --verify -q | field won_by_even verified solve_seconds)"
  for round in $(seq $rounds); do
    for v in $builds; do echo "$v: $(/tmp/bin/$v --format json parity $f --engine gpu --solver spm "$@" -q | field won_by_even solve_seconds)"; done
    (( round <= oinks )) && echo "oink: $(oink $oflags $f)"
  done
  for v in $builds; do echo "$v debug: $(debug /tmp/bin/$v parity $f --engine gpu --solver spm "$@")"; done
  echo "took $(( $(date +%s) - start )) s so far"
}
run prop50_1k 5 5 --no-preprocessing
run prop1000_1k 2 1 --no-preprocessing
run tprop21 3 2 --no-preprocessing
run tprop23 3 0 --no-preprocessing
run pgrand-200k-s11 3 2
run tc-10 2 1
run syntcomp-genbuf2 3 2
echo "benchmarks took $(( $(date +%s) - start )) s"
WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/final timeout $(( 590 - ($(date +%s) - start) )) /tmp/bin/tests --include-ignored --test-threads=1 parity_gpu:: > /tmp/tests.txt 2>&1
grep -E "^test |test result" /tmp/tests.txt
grep -E -A12 "^---- |panicked" /tmp/tests.txt | head -60
cp /tmp/tests.txt "$out/tests-d.txt"
echo "all took $(( $(date +%s) - start )) s"
date -u
