#!/usr/bin/env bash
# Device call A: where the time goes, kernel by kernel (ncu's
# gpu__time_duration, clocks left alone), for (1) our colouring of the
# random graph (scc_bench, SCC_BENCH_ONLY=random), (2) ECL-SCC on the same
# graph, (3) `warpcheck mec` on wlan-6-0 (built by stormpy through
# scripts/mec_bench.sh, which also times it beside Storm).
# Carried: .device/warpcheck, .device/b26 (scc_bench, ECL-SCC source),
# .device/wheels, .device/qvbs. One output file.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/profile-out}
here=benches/results/2026-11-25b-h100-profile
b=.device/b26
mkdir -p "$out" /tmp/graphs
exec > >(tee "$out/run-a.txt") 2>&1
nvidia-smi -L
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    $b/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp $b/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
echo "== scc_bench, random graph, plain"
SCC_BENCH_ONLY=random SCC_BENCH_GPU_ONLY=1 timeout 120 $b/scc_bench /tmp/graphs 2>&1 | grep -E "Coloring|Forward|DIFFERENT|same as"
for run in 1 2 3; do /tmp/ecl-scc /tmp/graphs/random-1e7-5e7.egr | grep -E "compute time|number of SCCs"; done
echo "== ncu: scc_bench, random graph"
SCC_BENCH_ONLY=random SCC_BENCH_GPU_ONLY=1 timeout 200 ncu --clock-control none --metrics gpu__time_duration.sum \
    --csv --log-file /tmp/ncu-ours.csv $b/scc_bench /tmp/graphs-ncu > /dev/null 2>&1
python3 $here/ncu_kernels.py /tmp/ncu-ours.csv --first 60
echo "== ncu: ECL-SCC, random graph"
timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --csv --log-file /tmp/ncu-ecl.csv \
    /tmp/ecl-scc /tmp/graphs/random-1e7-5e7.egr > /dev/null 2>&1
python3 $here/ncu_kernels.py /tmp/ncu-ecl.csv --first 60
echo "== MEC beside Storm, wlan-6-0"
timeout 300 scripts/mec_bench.sh .device/warpcheck .device/wheels .device/qvbs /tmp/mecb \
    --engines gpu --repeats 3 wlan-6-0 2>/tmp/mec.err
tail -3 /tmp/mec.err
umb=$(ls /tmp/mecb/models/wlan-6-0*.umb 2>/dev/null | head -1)
if [[ -n $umb ]]; then
    RUST_LOG=warpcheck::mec=debug,warpcheck::scc=debug .device/warpcheck -q mec "$umb" --engine gpu 2>&1 | grep DEBUG
    echo "== ncu: warpcheck mec wlan-6-0"
    timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum --csv --log-file /tmp/ncu-mec.csv \
        .device/warpcheck -q mec "$umb" --engine gpu > /dev/null 2>&1
    python3 $here/ncu_kernels.py /tmp/ncu-mec.csv --first 200
fi
