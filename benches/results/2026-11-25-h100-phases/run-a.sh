#!/usr/bin/env bash
# Device call A (issues 13 and 14): the device's copy bandwidth; the GPU
# sweeps' bandwidth on herman-15 and zeroconf-1000-8-false (debug log of
# `prob`); the phases of the GPU SCC and MEC decompositions of wlan-6-0
# (`gpu_work` of the scc report, debug log of `mec`); and the colouring
# beside ECL-SCC on the generated graphs, with this build's kernels and
# with those of the commit before (WARPCHECK_KERNEL_DIR).
# Carried: .device/warpcheck, .device/wheels, .device/b25 (scc_bench,
# ECL-SCC's source, kernels-before, qvbs).
set -u
cd "$(dirname "$0")/../../.."
here=benches/results/2026-11-25-h100-phases
out=${OUT:-/tmp/phases-out}
b=.device/b25
mkdir -p "$out"
nvidia-smi -L; lscpu | grep "Model name"
nvcc -O3 -arch=sm_90 -o /tmp/copy_bandwidth $here/copy_bandwidth.cu && /tmp/copy_bandwidth | tee "$out/copy.txt"

# SCC: this build's kernels, then the previous ones, then ECL-SCC.
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    $b/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp $b/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
for variant in after before after; do
    dir=""; [[ $variant == before ]] && dir=$PWD/$b/kernels-before
    WARPCHECK_KERNEL_DIR=$dir SCC_BENCH_GPU_ONLY=1 timeout 150 $b/scc_bench /tmp/graphs \
        >> "$out/scc-$variant.tsv" 2>> "$out/scc-$variant.err"
done
grep -h "Coloring" "$out"/scc-*.err
for graph in /tmp/graphs/*.egr; do for run in 1 2 3; do
    echo "== ECL-SCC $(basename "$graph")"; /tmp/ecl-scc "$graph" | grep -E "compute time|number of SCCs"; done
done 2>&1 | tee "$out/ecl.txt"

# Models built by stormpy (wheels carried).
source scripts/stormpy_env.sh
stormpy_python .device/wheels /tmp/stormpy
mkdir -p /tmp/models
timeout 300 "$python" $here/build_models.py $b/qvbs /tmp/models wlan-6-0 herman-15 zeroconf-1000-8-false | tee "$out/models.tsv"
for run in 1 2 3; do
    .device/warpcheck --format json -q scc /tmp/models/wlan-6-0.umb --engine gpu > "$out/wlan-scc-$run.json"
done
grep -A8 gpu_work "$out/wlan-scc-3.json"
RUST_LOG=warpcheck::mec=debug,warpcheck::scc=debug .device/warpcheck --format json -q mec /tmp/models/wlan-6-0.umb \
    --engine gpu > "$out/wlan-mec.json" 2> "$out/wlan-mec-debug.txt"
cat "$out/wlan-mec-debug.txt"
for model in "herman-15|R{\"steps\"}=? [ F \"stable\" ]" "zeroconf-1000-8-false|Pmax=? [ F \"correct\" ]"; do
    name=${model%%|*} property=${model#*|}
    RUST_LOG=warpcheck::numeric=debug .device/warpcheck --format json -q prob /tmp/models/$name.umb \
        --property "$property" --engine gpu --precision 1e-6 --relative > "$out/$name-prob.json" 2> "$out/$name-prob-debug.txt"
    grep -h "GPU iteration" "$out/$name-prob-debug.txt"
done
