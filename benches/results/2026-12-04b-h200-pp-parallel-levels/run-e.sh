#!/usr/bin/env bash
# Device call E (session 36), issue 15: `overlap` (bcdb709a: the GPU SPM's
# kernels load on a thread of their own while the host prepares the game)
# against `final` (3954be79). First every parity GPU test on `overlap`,
# then prop50_1k and pgrand-200k-s11 on the GPU (SPM, as in call C) with
# each build's debug line, Oink's SPM beside. Carried: .device/s36.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/g /tmp/shared
exec > >(tee "$out/run-e.txt") 2>&1
d=.device/s36
start=$(date +%s)
nvidia-smi -L; nproc; lscpu | grep -E 'Model name|L3'; date -u; cat $d/BUILD
for b in final overlap tests; do xz -dc $d/$b.xz > /tmp/bin/$b; done
chmod +x /tmp/bin/*
tar -C /tmp/shared --strip-components=1 -xJf $d/parity.tar.xz
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kc
WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/overlap timeout 330 /tmp/bin/tests --include-ignored --test-threads=1 parity_gpu:: > /tmp/tests.txt 2>&1
grep -E "^test |test result" /tmp/tests.txt
grep -E -A12 "^---- |panicked" /tmp/tests.txt | head -60
cp /tmp/tests.txt "$out/tests-e.txt"
echo "tests took $(( $(date +%s) - start )) s"
$d/gen/parity_propagation paths 50 1000 > /tmp/g/prop50_1k.pg
zcat $d/pgrand-200k-s11.pg.gz > /tmp/g/pgrand-200k-s11.pg
field() { python3 -c "import json,sys; r=json.load(sys.stdin); print(' '.join(str(r.get(k)) for k in sys.argv[1:]))" "$@"; }
debug() { "$@" -vv 2>&1 | grep -E 'DEBUG warpcheck::parity::gpu:' | sed 's/.*DEBUG//' | tr '\n' ' '; }
run() { # name rounds flags...
  local name=$1 rounds=$2; shift 2
  local f=/tmp/g/$name.pg
  local oflags="--spm"; [[ " $* " == *" --no-preprocessing "* ]] && oflags="--spm --no-wcwc --no-single"
  echo "== $name"
  echo "overlap, verified: $(/tmp/bin/overlap --format json parity $f --engine gpu --solver spm "$@" --verify -q | field won_by_even verified solve_seconds)"
  for round in $(seq $rounds); do
    for v in final overlap; do echo "$v: $(/tmp/bin/$v --format json parity $f --engine gpu --solver spm "$@" -q | field won_by_even solve_seconds)"; done
    echo "oink: $(timeout 60 $d/oink $oflags $f 2>&1 | grep -E 'total solving time' | tr '\n' ' ')"
  done
  for v in final overlap; do echo "$v debug: $(debug /tmp/bin/$v parity $f --engine gpu --solver spm "$@")"; done
}
/tmp/bin/final parity /tmp/g/prop50_1k.pg --engine gpu --solver spm --no-preprocessing -q > /dev/null
run prop50_1k 9 --no-preprocessing
run pgrand-200k-s11 3
echo "took $(( $(date +%s) - start )) s"; date -u
