#!/usr/bin/env bash
# Device call A (session 36), issue 15: priority promotion drawing the
# large levels of its dominions' attractors on threads (`after`) against
# the build before (`before`, dd9d095b, whose parity code 25cb474e keeps)
# and Oink 0a4a37f. First the pp unit tests (lib test binary) on this
# host's 16 cores, where the threads race most; then every game of 10^5
# vertices or more: the random game of 10^5 vertices, pgrand-200k-s11 and
# counter_qpt-500000 (9 rounds, four Oink solvers; `knob` is `after` with
# the level threshold from WARPCHECK_PP_LEVEL, scratch), then the games of
# 10^6 vertices or more (5 rounds, Oink's fastest of earlier calls).
# Carried: .device/s36.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
here=$(dirname "$0")
mkdir -p "$out" /tmp/bin /tmp/g
exec > >(tee "$out/run-a.txt") 2>&1
d=.device/s36
start=$(date +%s)
nvidia-smi -L; nproc; lscpu | grep -E 'Model name|L3'; date -u; cat $d/BUILD
for b in before after knob libtests; do xz -dc $d/$b.xz > /tmp/bin/$b; done
chmod +x /tmp/bin/*
for level in 256 4096 16384; do
  printf '#!/bin/sh\nWARPCHECK_PP_LEVEL=%s exec /tmp/bin/knob "$@"\n' $level > /tmp/bin/knob$level
  chmod +x /tmp/bin/knob$level
done
for i in 1 2 3; do
  timeout 120 /tmp/bin/libtests --test-threads=4 parity::pp:: 2>&1 | grep -E "^test .*(FAIL|ok)$|test result|panicked" | sort | uniq -c
done
echo "tests took $(( $(date +%s) - start )) s"
jobs=()
zcat $d/pgrand-200k-s11.pg.gz > /tmp/g/pgrand-200k-s11.pg & jobs+=($!)
zcat $d/counter_qpt-500000.pg.gz > /tmp/g/counter_qpt-500000.pg & jobs+=($!)
$d/gen/parity_random 100000 1000 5 15 7 > /tmp/g/random-100k.pg & jobs+=($!)
$d/gen/parity_random 1000000 1000 5 15 7 > /tmp/g/random-1m.pg & jobs+=($!)
$d/gen/counter_m 333333 > /tmp/g/counter_m-333333.pg & jobs+=($!)
$d/gen/counter_ortl 200000 > /tmp/g/counter_ortl-200000.pg & jobs+=($!)
$d/gen/counter_qpt 5000000 > /tmp/g/counter_qpt-5000000.pg & jobs+=($!)
$d/gen/stgame 1000000 2 6 2 6 > /tmp/g/stgame-1M-2-6-2-6.pg & jobs+=($!)
wait "${jobs[@]}"
echo "games made after $(( $(date +%s) - start )) s"
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kc
source $here/../2026-12-03l-h200-parity-prepared/bench.sh
oinks="--zlk -w 16
--zlk -w 1
--npp
--tl"
for name in random-100k pgrand-200k-s11; do bench $name 9 "before
after
after --solver pp
after --solver pp --threads 1
knob256 --solver pp
knob4096 --solver pp
knob16384 --solver pp" "$oinks"; done
bench counter_qpt-500000 7 "before
after" "--zlk -w 16
--tl"
bench random-1m 5 "before
after
before --engine cpu
after --engine cpu
after --engine cpu --solver pp" "--zlk -w 16
--npp"
bench stgame-1M-2-6-2-6 5 "before
after" "--zlk -w 16"
bench counter_m-333333 5 "before
after" "--tl"
bench counter_ortl-200000 5 "before
after" "--tl"
(( $(date +%s) - start < 440 )) && bench counter_qpt-5000000 5 "before
after" "--zlk -w 16"
echo "took $(( $(date +%s) - start )) s"; date -u
