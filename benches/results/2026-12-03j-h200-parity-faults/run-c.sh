#!/usr/bin/env bash
# Device call C (session 31), issue 15: `auto` against Oink's fastest
# (bench.sh) on the other games of 10^5 vertices or more measured
# before: Oink's counter_m 333333, counter_ortl 200000 and counter_qpt
# 5000000 and stgame 1000000 2 6 2 6 (made here by Oink's generators; the
# steady game's vertices and edges are random, so it differs from call to
# call), and rngame 1000000 100 1 3 (made on the 2-core machine: too
# slow to make here). Carried: .device/s31 (as call B) and .device/s31g
# (that game).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
here=$(dirname "$0")
mkdir -p "$out" /tmp/bin /tmp/g
exec > >(tee "$out/run-c.txt") 2>&1
d=.device/s31
start=$(date +%s)
nvidia-smi -L; nproc; date -u; cat $d/BUILD
xz -dc $d/warpcheck.xz > /tmp/bin/warpcheck && chmod +x /tmp/bin/warpcheck
jobs=()
$d/gen/counter_m 333333 > /tmp/g/counter_m-333333.pg & jobs+=($!)
$d/gen/counter_ortl 200000 > /tmp/g/counter_ortl-200000.pg & jobs+=($!)
$d/gen/counter_qpt 5000000 > /tmp/g/counter_qpt-5000000.pg & jobs+=($!)
$d/gen/stgame 1000000 2 6 2 6 > /tmp/g/stgame-1M-2-6-2-6.pg & jobs+=($!)
xz -dc $d/../s31g/rngame-1M-100-1-3.pg.xz > /tmp/g/rngame-1M-100-1-3.pg & jobs+=($!)
wait "${jobs[@]}"
echo "games made after $(( $(date +%s) - start )) s"
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kc-warpcheck
/tmp/bin/warpcheck --quiet parity /tmp/g/rngame-1M-100-1-3.pg --engine gpu > /dev/null   # fills the kernel cache
source $here/bench.sh
bench counter_m-333333 5
bench counter_ortl-200000 5
bench rngame-1M-100-1-3 5
bench stgame-1M-2-6-2-6 5
(( $(date +%s) - start < 420 )) && bench counter_qpt-5000000 5
echo "took $(( $(date +%s) - start )) s"; date -u
