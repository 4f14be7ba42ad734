#!/usr/bin/env bash
# Device call B: Peterson-PT-3, where ECL-SCC leads: scc_bench (which
# explores it and writes its .egr), ECL-SCC twice, then ncu over the
# colouring's kernels (exploration's left out) and over ECL-SCC, launch by
# launch, to compare rounds, passes and their sizes. Carried: .device/a
# (xz'd scc_bench, ECL-SCC's source), .device/mcc-all/Peterson-PT-3.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
here=benches/results/2026-11-25b-h100-profile
ecl=.device/a/ecl
mkdir -p "$out" /tmp/bin /tmp/graphs
exec > >(tee "$out/run-b.txt") 2>&1
xz -dc .device/a/scc_bench.xz > /tmp/bin/scc_bench && chmod +x /tmp/bin/scc_bench
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    $ecl/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp $ecl/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
SCC_BENCH_ONLY=none SCC_BENCH_GPU_ONLY=1 timeout 100 /tmp/bin/scc_bench /tmp/graphs .device/mcc-all/Peterson-PT-3 2>&1 \
    | grep -E "Coloring|DIFFERENT|same as|in place"
for run in 1 2; do echo "== ECL-SCC $(/tmp/ecl-scc /tmp/graphs/Peterson-PT-3.egr | grep -E "compute time")"; done
echo "== ncu: ECL-SCC, Peterson-PT-3"
timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --csv --log-file /tmp/ncu-ecl-p.csv \
    /tmp/ecl-scc /tmp/graphs/Peterson-PT-3.egr > /dev/null 2>&1
python3 $here/ncu_kernels.py /tmp/ncu-ecl-p.csv --first 400
echo "== ncu: scc_bench colouring kernels, Peterson-PT-3"
SCC_BENCH_ONLY=none SCC_BENCH_GPU_ONLY=1 timeout 200 ncu --clock-control none --metrics gpu__time_duration.sum \
    -k regex:"signatures|summary" --launch-count 400 \
    --csv --log-file /tmp/ncu-ours-p.csv /tmp/bin/scc_bench /tmp/graphs .device/mcc-all/Peterson-PT-3 > /dev/null 2>&1
python3 $here/ncu_kernels.py /tmp/ncu-ours-p.csv --first 400
cp /tmp/ncu-*.csv "$out/"
