#!/usr/bin/env bash
# Device call B: (1) colouring with labels that are state numbers plus one
# (k-ident, as ECL-SCC's) against the scrambled priorities (k-old), one
# scc_bench binary, kernels swapped by WARPCHECK_KERNEL_DIR, alternately;
# (2) ncu source counters of explore_levels on AutoFlight-PT-05a, trees
# (compact roots) and plain, no traces: where trees lose their time.
# The generated graphs run in the first round only.
# Carried: .device/s14, .device/mcc-all, .device/f/mcc, .device/a/ecl.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/graphs
exec > >(tee "$out/run-b.txt") 2>&1
nvidia-smi -L
for f in warpcheck scc_bench; do xz -dc .device/s14/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
for rep in 1 2; do
  for v in old ident; do
    echo "== scc_bench kernels $v"
    only=$([[ $rep == 1 ]] || echo none)
    WARPCHECK_KERNEL_DIR=.device/s14/k-$v SCC_BENCH_ONLY=$only SCC_BENCH_GPU_ONLY=1 timeout 120 /tmp/bin/scc_bench /tmp/graphs \
      .device/f/mcc/Peterson-PT-3 .device/f/mcc/Referendum-PT-0015 2>&1 | grep -E "Coloring|DIFFERENT|same as|in place"
  done
done
ecl=.device/a/ecl
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    $ecl/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp $ecl/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
for g in /tmp/graphs/*.egr; do for r in 1 2; do echo "== ECL-SCC $(basename $g) $(/tmp/ecl-scc $g | grep -E "compute time")"; done; done
model=.device/mcc-all/AutoFlight-PT-05a/model.pnml
for storage in tree plain; do
  echo "== ncu explore_levels, $storage"
  timeout 150 ncu --replay-mode application --section SourceCounters --section WarpStateStats --section Occupancy \
    --section LaunchStats --section SpeedOfLight -k regex:explore_levels --launch-count 1 -f -o /tmp/prof-$storage \
    /tmp/bin/warpcheck check $model --engine gpu --storage $storage --no-trace --memory 16G --initial-table 1G 2>&1 | tail -5
  ncu -i /tmp/prof-$storage.ncu-rep --page details --csv > "$out/details-$storage.csv" 2>&1
  ncu -i /tmp/prof-$storage.ncu-rep --page source --csv --print-source cuda,sass > "$out/source-$storage.csv" 2>&1 \
    || ncu -i /tmp/prof-$storage.ncu-rep --page source --csv --print-source sass > "$out/source-$storage.csv" 2>&1
  ls -la "$out"
done
