#!/usr/bin/env bash
# Device call A (after ../2026-11-29g-h200-pmax/run-a.sh, which unpacks
# /tmp/bin/scc_bench): where the colouring's time goes now on the random
# graph and Peterson-PT-3, beside ECL-SCC (8e67732, nvcc, its printout's
# clock rates dropped: CUDA 13 has no deviceProp.clockRate).
# scc_bench twice (its phases), ECL-SCC three times, then ncu
# (gpu__time_duration, clocks left alone) over one run of each.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
here=benches/results/2026-11-25b-h100-profile
ecl=.device/a/ecl
mkdir -p "$out" /tmp/graphs /tmp/graphs-ncu
exec > >(tee "$out/run-scc-a.txt") 2>&1
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    $ecl/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp $ecl/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
for run in 1 2; do
    echo "== scc_bench run $run"
    SCC_BENCH_ONLY=random SCC_BENCH_GPU_ONLY=1 timeout 100 /tmp/bin/scc_bench /tmp/graphs .device/mcc-all/Peterson-PT-3 2>&1 \
        | grep -E "Coloring|DIFFERENT|same as|in place"
done
for graph in /tmp/graphs/*.egr; do
    for run in 1 2 3; do
        echo "== ECL-SCC $(basename "$graph") $(/tmp/ecl-scc "$graph" | grep -E "compute time")"
    done
done
echo "== ncu: scc_bench, random graph"
SCC_BENCH_ONLY=random SCC_BENCH_GPU_ONLY=1 timeout 150 ncu --clock-control none --metrics gpu__time_duration.sum \
    --csv --log-file /tmp/ncu-ours.csv /tmp/bin/scc_bench /tmp/graphs-ncu > /dev/null 2>&1
python3 $here/ncu_kernels.py /tmp/ncu-ours.csv --first 40
echo "== ncu: ECL-SCC, random graph"
timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --csv --log-file /tmp/ncu-ecl.csv \
    /tmp/ecl-scc /tmp/graphs/random-1e7-5e7.egr > /dev/null 2>&1
python3 $here/ncu_kernels.py /tmp/ncu-ecl.csv --first 40
