#!/usr/bin/env bash
# Device call B (session 34), issue 15: three builds side by side on GPU
# SPM: session 33's final (ab8c532c, `before`), NVRTC kept loaded
# (`nvrtc`), and that with a vertex a tile in the lifting launches (`now`).
# Rounds of the three on the propagation games without preprocessing
# (Oink's SPM without its preprocessing beside prop50_1k), then
# pgrand-200k-s11 and tc-10 with the usual preprocessing (Oink's --spm
# beside); the debug line of each build. Then every parity GPU test on
# `now`, and with time left the other GPU tests.
# Carried: .device/s33 (generator, Oink and its libraries), .device/s33d
# (before, ../shared/parity), .device/s34b (nvrtc, now and its tests).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/g /tmp/shared
exec > >(tee "$out/run-b.txt") 2>&1
d=.device/s33
b=.device/s33d
n=.device/s34b
start=$(date +%s)
nvidia-smi -L; nproc; date -u; cat $n/BUILD
xz -dc $b/warpcheck.xz > /tmp/bin/before; xz -dc $n/warpcheck-nvrtc.xz > /tmp/bin/nvrtc
xz -dc $n/warpcheck.xz > /tmp/bin/now; xz -dc $n/tests.xz > /tmp/bin/tests
chmod +x /tmp/bin/*
tar -C /tmp/shared -xJf $b/parity.tar.xz
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kc
g=$d/gen/parity_propagation
$g paths 50 1000 > /tmp/g/prop50_1k.pg
$g paths 1000 1000 > /tmp/g/prop1000_1k.pg
$g tree 22 2 > /tmp/g/tprop21.pg
$g tree 24 2 > /tmp/g/tprop23.pg
zcat /tmp/shared/parity/pgrand-200k-s11.pg.gz > /tmp/g/pgrand-200k-s11.pg
cp /tmp/shared/parity/tc-10.pg /tmp/g/
field() { python3 -c "import json,sys; r=json.load(sys.stdin); print(' '.join(str(r.get(k)) for k in sys.argv[1:]))" "$@"; }
debug() { "$@" -vv 2>&1 | grep -E 'DEBUG warpcheck::parity::gpu:' | sed 's/.*DEBUG//' | tr '\n' ' '; }
builds="before nvrtc now"
# Fill each build's kernel cache.
for v in $builds; do /tmp/bin/$v parity /tmp/g/prop50_1k.pg --engine gpu --solver spm --no-preprocessing -q > /dev/null; done
for name in prop50_1k prop1000_1k tprop21 tprop23; do
  f=/tmp/g/$name.pg
  echo "== $name"
  echo "now, verified: $(/tmp/bin/now --format json parity $f --engine gpu --solver spm --no-preprocessing --verify -q | field won_by_even verified solve_seconds)"
  rounds=3; [[ $name == prop50_1k ]] && rounds=5
  for round in $(seq $rounds); do
    for v in $builds; do
      echo "$v: $(/tmp/bin/$v --format json parity $f --engine gpu --solver spm --no-preprocessing -q | field won_by_even solve_seconds)"
    done
    [[ $name == prop50_1k ]] && (( round <= 3 )) && echo "oink: $($d/oink --spm --no-wcwc --no-single $f 2>&1 | grep -E 'total solving time' | tr '\n' ' ')"
  done
  for v in $builds; do echo "$v debug: $(debug /tmp/bin/$v parity $f --engine gpu --solver spm --no-preprocessing)"; done
  echo "took $(( $(date +%s) - start )) s so far"
done
for name in pgrand-200k-s11 tc-10; do
  f=/tmp/g/$name.pg
  echo "== $name"
  echo "now, verified: $(/tmp/bin/now --format json parity $f --engine gpu --solver spm --verify -q | field won_by_even verified solve_seconds)"
  for round in 1 2; do
    for v in $builds; do
      echo "$v: $(/tmp/bin/$v --format json parity $f --engine gpu --solver spm -q | field won_by_even solve_seconds)"
    done
    echo "oink: $($d/oink --spm $f 2>&1 | grep -E 'total solving time' | tr '\n' ' ')"
  done
  for v in $builds; do echo "$v debug: $(debug /tmp/bin/$v parity $f --engine gpu --solver spm)"; done
done
echo "benchmarks took $(( $(date +%s) - start )) s"
WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/now timeout $(( 560 - ($(date +%s) - start) )) /tmp/bin/tests --include-ignored --test-threads=1 parity_gpu:: > /tmp/tests.txt 2>&1
grep -E "^test |test result" /tmp/tests.txt
grep -E -A12 "^---- |panicked" /tmp/tests.txt | head -60
echo "parity tests done at $(( $(date +%s) - start )) s"
left=$(( 585 - ($(date +%s) - start) ))
if (( left > 30 )); then
  WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/now timeout $left /tmp/bin/tests --include-ignored --test-threads=1 --skip parity_gpu:: gpu:: scc:: mec:: > /tmp/tests2.txt 2>&1
  grep -E "^test .*(FAILED|ok)|test result" /tmp/tests2.txt | tail -40
  grep -E -A12 "^---- |panicked" /tmp/tests2.txt | head -40
fi
echo "all took $(( $(date +%s) - start )) s"
date -u
