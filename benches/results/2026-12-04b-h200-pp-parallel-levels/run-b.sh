#!/usr/bin/env bash
# Device call B (session 36), issue 15: where `auto`'s race loses time
# against priority promotion alone on the random game of 10^5 vertices
# (call A: 0.0177 s against 0.0133 s by median). `knob2` is `after` with
# knobs.patch (scratch): WARPCHECK_PP_POOL, the threads of pp's pool in
# the race (14 of 16 in `after`), and WARPCHECK_RACE_DELAY_US, a head start
# of pp in the race from 4 threads (none in `after`); then counter_m
# 333333, where tangle learning wins the race, with those head starts; then
# prop50_1k on the GPU without preprocessing against Oink's SPM without
# its preprocessing (`--spm --no-wcwc --no-single`), the GPU code
# unchanged since session 35. Carried: .device/s36.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
here=$(dirname "$0")
mkdir -p "$out" /tmp/bin /tmp/g
exec > >(tee "$out/run-b.txt") 2>&1
d=.device/s36
start=$(date +%s)
nvidia-smi -L; nproc; lscpu | grep -E 'Model name|L3'; date -u; cat $d/BUILD
for b in after knob2; do xz -dc $d/$b.xz > /tmp/bin/$b; done
wrap() { # name env...
  local name=$1; shift
  printf '#!/bin/sh\nexec env %s /tmp/bin/knob2 "$@"\n' "$*" > /tmp/bin/$name; chmod +x /tmp/bin/$name
}
wrap pool13 WARPCHECK_PP_POOL=13
wrap pool8 WARPCHECK_PP_POOL=8
wrap delay2ms WARPCHECK_RACE_DELAY_US=2000
wrap delay5ms WARPCHECK_RACE_DELAY_US=5000
wrap pool13delay2ms WARPCHECK_PP_POOL=13 WARPCHECK_RACE_DELAY_US=2000
chmod +x /tmp/bin/*
zcat $d/pgrand-200k-s11.pg.gz > /tmp/g/pgrand-200k-s11.pg
$d/gen/parity_random 100000 1000 5 15 7 > /tmp/g/random-100k.pg
$d/gen/counter_m 333333 > /tmp/g/counter_m-333333.pg
$d/gen/parity_propagation paths 50 1000 > /tmp/g/prop50_1k.pg
echo "games made after $(( $(date +%s) - start )) s"
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kc
source $here/../2026-12-03l-h200-parity-prepared/bench.sh
configs="after
after --solver pp
after --solver pp --threads 15
pool13
pool8
delay2ms
delay5ms
pool13delay2ms"
for name in random-100k pgrand-200k-s11; do bench $name 9 "$configs" "--zlk -w 16
--npp"; done
bench counter_m-333333 5 "after
delay2ms
delay5ms" "--tl"
echo "== prop50_1k $(date -u +%T)"
f=/tmp/g/prop50_1k.pg
field() { python3 -c "import json,sys; r=json.load(sys.stdin); print(' '.join(str(r.get(k)) for k in sys.argv[1:]))" "$@"; }
/tmp/bin/after parity $f --engine gpu --solver spm --no-preprocessing -q > /dev/null
echo "after, verified: $(/tmp/bin/after --format json parity $f --engine gpu --solver spm --no-preprocessing --verify -q | field won_by_even verified solve_seconds)"
for round in $(seq 7); do
  echo "after: $(/tmp/bin/after --format json parity $f --engine gpu --solver spm --no-preprocessing -q | field won_by_even solve_seconds)"
  echo "oink: $(timeout 60 $d/oink --spm --no-wcwc --no-single $f 2>&1 | grep -E 'total solving time' | tr '\n' ' ')"
done
echo "took $(( $(date +%s) - start )) s"; date -u
