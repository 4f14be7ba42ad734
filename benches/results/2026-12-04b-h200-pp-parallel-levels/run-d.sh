#!/usr/bin/env bash
# Device call D (session 36), issue 15: `regions` (755655e7) draws the large
# levels of the regions' attractors on threads too, against `final`
# (3954be79, dominions' attractors only) and Oink's two fastest solvers.
# First the lib tests of `pp` three times on the 16 cores (the race test
# now also on a game of regions and dominions). Carried: .device/s36.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
here=$(dirname "$0")
mkdir -p "$out" /tmp/bin /tmp/g
exec > >(tee "$out/run-d.txt") 2>&1
d=.device/s36
start=$(date +%s)
nvidia-smi -L; nproc; lscpu | grep -E 'Model name|L3'; date -u; cat $d/BUILD
for b in final regions libtests; do xz -dc $d/$b.xz > /tmp/bin/$b; done
chmod +x /tmp/bin/*
ln -sf /tmp/bin/regions /tmp/bin/after
for i in 1 2 3; do
  timeout 120 /tmp/bin/libtests --test-threads=4 parity::pp:: 2>&1 | grep -E "test result|panicked"
done
zcat $d/pgrand-200k-s11.pg.gz > /tmp/g/pgrand-200k-s11.pg
zcat $d/counter_qpt-500000.pg.gz > /tmp/g/counter_qpt-500000.pg
$d/gen/parity_random 100000 1000 5 15 7 > /tmp/g/random-100k.pg
$d/gen/parity_random 1000000 1000 5 15 7 > /tmp/g/random-1m.pg
echo "games made after $(( $(date +%s) - start )) s"
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kc
source $here/../2026-12-03l-h200-parity-prepared/bench.sh
for name in pgrand-200k-s11 random-100k; do bench $name 9 "final
regions
final --solver pp
regions --solver pp
regions --solver pp --threads 1" "--zlk -w 16
--npp"; done
bench counter_qpt-500000 5 "final --engine cpu
regions --engine cpu
final
regions" "--zlk -w 16"
bench random-1m 5 "final --engine cpu
regions --engine cpu" "--zlk -w 16"
echo "took $(( $(date +%s) - start )) s"; date -u
