#!/usr/bin/env bash
# Device call B (session 38), issue 17: what compact roots cost beyond root
# pairs when both keep queues (call A: 1.21x on all three large nets).
# (1) ncu source counters and warp states of explore_levels on
# AutoFlight-PT-05a, no traces, trees with compact roots and with root
# pairs, both with queues (`treeq`, SCRATCH_TREE_QUEUE=1); (2) registers,
# stack and spills of every search kernel compiled in this call
# (cuobjdump on the kernel cache); (3) the parity GPU tests on the final
# test binary. Carried: .device/s38.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/shared
exec > >(tee "$out/run-b.txt") 2>&1
d=.device/s38
start=$(date +%s)
nvidia-smi -L; date -u; cat $d/BUILD
for b in final treeq tests; do xz -dc $d/$b.xz > /tmp/bin/$b; done
chmod +x /tmp/bin/*
tar -C /tmp/shared --strip-components=1 -xJf $d/mcc3.tar.xz
tar -C /tmp/shared --strip-components=1 -xJf $d/parity.tar.xz
export WARPCHECK_KERNEL_CACHE=/tmp/kc
model=/tmp/shared/mcc/AutoFlight-PT-05a/model.pnml
for roots in compact pairs; do
  echo "== plain run, $roots"
  SCRATCH_TREE_QUEUE=1 /tmp/bin/treeq check $model --engine gpu --gpus 1 --storage tree --tree-roots $roots --no-trace --memory 16G --initial-table 1G --format json | head -c 600; echo
  echo "== ncu explore_levels, $roots"
  SCRATCH_TREE_QUEUE=1 timeout 170 ncu --clock-control none --replay-mode application --section SourceCounters --section WarpStateStats --section Occupancy \
    --section LaunchStats --section SpeedOfLight -k regex:explore_levels --launch-count 1 -f -o /tmp/prof-$roots \
    /tmp/bin/treeq check $model --engine gpu --gpus 1 --storage tree --tree-roots $roots --no-trace --memory 16G --initial-table 1G 2>&1 | tail -3
  ncu -i /tmp/prof-$roots.ncu-rep --page details --csv > "$out/details-$roots.csv" 2>&1
  ncu -i /tmp/prof-$roots.ncu-rep --page source --csv --print-source cuda,sass 2>/dev/null | xz -T4 > "$out/source-$roots.csv.xz"
  echo "at $(( $(date +%s) - start )) s"
done
echo "== resource usage of the cached kernels"
for f in /tmp/kc/*; do
  head -c -8 "$f" > /tmp/k.cubin
  cuobjdump --dump-resource-usage /tmp/k.cubin 2>&1 | grep -E "Function explore_levels|REG|STACK" | head -4
done
left=$(( 560 - ($(date +%s) - start) ))
echo "tests get $left s"
WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/final timeout $left /tmp/bin/tests --include-ignored --test-threads=1 parity_gpu:: > /tmp/tests.txt 2>&1
echo "tests rc $?"
grep -E "^test |test result" /tmp/tests.txt
grep -E -A12 "^---- |panicked" /tmp/tests.txt | head -60
cp /tmp/tests.txt "$out/tests-b.txt"
echo "took $(( $(date +%s) - start )) s"; date -u
