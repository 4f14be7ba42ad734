#!/usr/bin/env bash
# Device call C (session 36), issue 15: the final build (`final`,
# 3954be79). Every parity GPU test (GPU SPM and the GPU's preprocessing
# against the CPU's solvers and Oink's winners, races, stops, the command
# line), then `auto` against Oink's two fastest solvers on the two games of
# 10^5 vertices that the CPU solves alone (9 rounds), and prop50_1k on the
# GPU against Oink's SPM without preprocessing (7 rounds).
# Carried: .device/s36.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
here=$(dirname "$0")
mkdir -p "$out" /tmp/bin /tmp/g /tmp/shared
exec > >(tee "$out/run-c.txt") 2>&1
d=.device/s36
start=$(date +%s)
nvidia-smi -L; nproc; lscpu | grep -E 'Model name|L3'; date -u; cat $d/BUILD
for b in final tests; do xz -dc $d/$b.xz > /tmp/bin/$b; done
chmod +x /tmp/bin/*
ln -sf /tmp/bin/final /tmp/bin/after
tar -C /tmp/shared --strip-components=1 -xJf $d/parity.tar.xz
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kc
WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/final timeout 330 /tmp/bin/tests --include-ignored --test-threads=1 parity_gpu:: > /tmp/tests.txt 2>&1
grep -E "^test |test result" /tmp/tests.txt
grep -E -A12 "^---- |panicked" /tmp/tests.txt | head -60
cp /tmp/tests.txt "$out/tests-c.txt"
echo "tests took $(( $(date +%s) - start )) s"
zcat $d/pgrand-200k-s11.pg.gz > /tmp/g/pgrand-200k-s11.pg
$d/gen/parity_random 100000 1000 5 15 7 > /tmp/g/random-100k.pg
$d/gen/parity_propagation paths 50 1000 > /tmp/g/prop50_1k.pg
source $here/../2026-12-03l-h200-parity-prepared/bench.sh
for name in random-100k pgrand-200k-s11; do bench $name 9 "final
final --solver pp" "--zlk -w 16
--npp"; done
echo "== prop50_1k $(date -u +%T)"
f=/tmp/g/prop50_1k.pg
field() { python3 -c "import json,sys; r=json.load(sys.stdin); print(' '.join(str(r.get(k)) for k in sys.argv[1:]))" "$@"; }
/tmp/bin/final parity $f --engine gpu --solver spm --no-preprocessing -q > /dev/null
echo "final, verified: $(/tmp/bin/final --format json parity $f --engine gpu --solver spm --no-preprocessing --verify -q | field won_by_even verified solve_seconds)"
for round in $(seq 7); do
  echo "final: $(/tmp/bin/final --format json parity $f --engine gpu --solver spm --no-preprocessing -q | field won_by_even solve_seconds)"
  echo "oink: $(timeout 60 $d/oink --spm --no-wcwc --no-single $f 2>&1 | grep -E 'total solving time' | tr '\n' ' ')"
done
echo "took $(( $(date +%s) - start )) s"; date -u
