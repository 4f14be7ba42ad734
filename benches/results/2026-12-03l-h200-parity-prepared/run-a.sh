#!/usr/bin/env bash
# Device call A (session 32), issue 15: the GPU tests of parity that run
# the CPU's solvers (the command line, races, stop, preprocessing with
# every rest solver) on the new build; then the games of 10^5 to 5*10^5
# vertices, 9 rounds: `before` (0c67764e), `after` (7789131c: the game
# prepared before the solving clock), `prefetch` (after +
# prefetch-bounds.patch), `after --threads 1` (priority promotion alone),
# against Oink's zlk (16 and 1 workers), npp and tl. Carried: .device/s32.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
here=$(dirname "$0")
mkdir -p "$out" /tmp/bin /tmp/g /tmp/shared
exec > >(tee "$out/run-a.txt") 2>&1
d=.device/s32
start=$(date +%s)
nvidia-smi -L; nproc; lscpu | grep -E 'Model name|L2|L3|NUMA node\(s\)'; date -u; cat $d/BUILD
for b in warpcheck before prefetch tests; do xz -dc $d/$b.xz > /tmp/bin/$b; done
mv /tmp/bin/warpcheck /tmp/bin/after; chmod +x /tmp/bin/*
tar -C /tmp/shared -xJf $d/parity.tar.xz
WARPCHECK_KERNEL_CACHE=/tmp/kc WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/after \
  timeout 160 /tmp/bin/tests --include-ignored --test-threads=1 parity_gpu::the_gpus parity_gpu::a_race parity_gpu::a_stop parity_gpu::the_cli 2>&1 \
  | grep -E -A3 "^test |test result|panicked|assert|SKIPPED" | grep -v "^\s*$" | head -60
echo "tests took $(( $(date +%s) - start )) s"
zcat $d/pgrand-200k-s11.pg.gz > /tmp/g/pgrand-200k-s11.pg
$d/gen/parity_random 100000 1000 5 15 7 > /tmp/g/random-100k.pg
zcat /tmp/shared/parity/counter_qpt-500000.pg.gz > /tmp/g/counter_qpt-500000.pg
export LD_LIBRARY_PATH=$d/lib
source $here/bench.sh
ours="before
after
prefetch
after --threads 1"
oinks="--zlk -w 16
--zlk -w 1
--npp
--tl"
for name in pgrand-200k-s11 random-100k counter_qpt-500000; do bench $name 9 "$ours" "$oinks"; done
echo "took $(( $(date +%s) - start )) s"; date -u
