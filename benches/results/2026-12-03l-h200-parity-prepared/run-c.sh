#!/usr/bin/env bash
# Device call C (session 32), issue 15: the final build (8cd80f43: the
# game prepared before the solving clock; the transpose parallel from
# 2^17 edges on 16 threads). The parity GPU tests that run the CPU's
# solvers; then `auto` against Oink on every game of 10^5 vertices or more
# measured before: pgrand-200k-s11, the random game of 10^5 vertices and
# counter_qpt-500000 (9 rounds, four Oink solvers), then rngame 1000000 100
# 1 3, stgame 1000000 2 6 2 6 (made here: random, so not the instance of
# earlier calls), counter_m 333333, counter_ortl 200000 and counter_qpt
# 5000000 (5 rounds, against Oink's fastest of session 31's call C).
# Carried: .device/s32f.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
here=$(dirname "$0")
mkdir -p "$out" /tmp/bin /tmp/g /tmp/shared
exec > >(tee "$out/run-c.txt") 2>&1
d=.device/s32f
start=$(date +%s)
nvidia-smi -L; nproc; lscpu | grep -E 'Model name|L3'; date -u; cat $d/BUILD
xz -dc $d/warpcheck.xz > /tmp/bin/after; xz -dc $d/tests.xz > /tmp/bin/tests; chmod +x /tmp/bin/*
tar -C /tmp/shared -xJf $d/parity.tar.xz
WARPCHECK_KERNEL_CACHE=/tmp/kc WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/after \
  timeout 160 /tmp/bin/tests --include-ignored --test-threads=1 parity_gpu::the_gpus parity_gpu::a_race parity_gpu::a_stop parity_gpu::the_cli 2>&1 \
  | grep -E -A3 "^test |test result|panicked|assert|SKIPPED" | grep -v "^\s*$" | head -60
echo "tests took $(( $(date +%s) - start )) s"
jobs=()
zcat $d/pgrand-200k-s11.pg.gz > /tmp/g/pgrand-200k-s11.pg & jobs+=($!)
$d/gen/parity_random 100000 1000 5 15 7 > /tmp/g/random-100k.pg & jobs+=($!)
zcat /tmp/shared/parity/counter_qpt-500000.pg.gz > /tmp/g/counter_qpt-500000.pg & jobs+=($!)
$d/gen/counter_m 333333 > /tmp/g/counter_m-333333.pg & jobs+=($!)
$d/gen/counter_ortl 200000 > /tmp/g/counter_ortl-200000.pg & jobs+=($!)
$d/gen/counter_qpt 5000000 > /tmp/g/counter_qpt-5000000.pg & jobs+=($!)
$d/gen/stgame 1000000 2 6 2 6 > /tmp/g/stgame-1M-2-6-2-6.pg & jobs+=($!)
xz -dc $d/rngame-1M-100-1-3.pg.xz > /tmp/g/rngame-1M-100-1-3.pg & jobs+=($!)
wait "${jobs[@]}"
echo "games made after $(( $(date +%s) - start )) s"
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kc
source $here/bench.sh
oinks="--zlk -w 16
--zlk -w 1
--npp
--tl"
for name in pgrand-200k-s11 random-100k counter_qpt-500000; do bench $name 9 "after
after --threads 1" "$oinks"; done
bench rngame-1M-100-1-3 5 after "--npp"
bench stgame-1M-2-6-2-6 5 after "--zlk -w 16"
bench counter_m-333333 5 after "--tl"
bench counter_ortl-200000 5 after "--tl"
(( $(date +%s) - start < 420 )) && bench counter_qpt-5000000 5 after "--zlk -w 16"
echo "took $(( $(date +%s) - start )) s"; date -u
