#!/usr/bin/env bash
# Device call B (session 32), issue 15: two knobs of a scratch build
# (knobs.patch on 7789131c) with `--engine auto`: the parallel transpose
# from 2^17 edges instead of 2^20 (`par`), and a head start of the first
# solver, pp, before tangle learning and Zielonka's algorithm join on 16
# threads (`delay5`, `delay20`: 5 and 20 ms of pp's CPU time; today they
# start at once). pgrand-200k-s11 and the random game of 10^5 vertices, 9
# rounds; counter_m 333333 and counter_ortl 200000, where tangle learning
# wins, 5 rounds. Carried: .device/s32.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
here=$(dirname "$0")
mkdir -p "$out" /tmp/bin /tmp/g
exec > >(tee "$out/run-b.txt") 2>&1
d=.device/s32
start=$(date +%s)
nvidia-smi -L; nproc; date -u; cat $d/BUILD
for b in warpcheck knobs; do xz -dc $d/$b.xz > /tmp/bin/$b; done
mv /tmp/bin/warpcheck /tmp/bin/after
printf '#!/bin/sh\nKNOB_PAR_MIN=131072 exec /tmp/bin/knobs "$@"\n' > /tmp/bin/par
printf '#!/bin/sh\nKNOB_DELAY_US=5000 exec /tmp/bin/knobs "$@"\n' > /tmp/bin/delay5
printf '#!/bin/sh\nKNOB_DELAY_US=20000 exec /tmp/bin/knobs "$@"\n' > /tmp/bin/delay20
printf '#!/bin/sh\nKNOB_PAR_MIN=131072 KNOB_DELAY_US=20000 exec /tmp/bin/knobs "$@"\n' > /tmp/bin/both20
chmod +x /tmp/bin/*
zcat $d/pgrand-200k-s11.pg.gz > /tmp/g/pgrand-200k-s11.pg
$d/gen/parity_random 100000 1000 5 15 7 > /tmp/g/random-100k.pg
$d/gen/counter_m 333333 > /tmp/g/counter_m-333333.pg
$d/gen/counter_ortl 200000 > /tmp/g/counter_ortl-200000.pg
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kc
source $here/bench.sh
ours="after
par
delay5
delay20
both20"
for name in pgrand-200k-s11 random-100k; do bench $name 9 "$ours" "--npp
--zlk -w 16"; done
for name in counter_m-333333 counter_ortl-200000; do bench $name 5 "after
delay5
delay20" "--tl"; done
echo "took $(( $(date +%s) - start )) s"; date -u
