#!/usr/bin/env bash
# Device call C: the GPU tests of the work-list trimming and deaths (and
# of everything else this build touched), then the SCC colouring of
# scc_bench's generated graphs with this build (after) and the build of
# the commit before (before, .device/b25/scc_bench-before), beside ECL-SCC.
# Everything it prints goes to one file (few files come back).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/phases-out}
b=.device/b25
mkdir -p "$out"
exec > >(tee "$out/run-c.txt") 2>&1
nvidia-smi -L
WARPCHECK_SHARED=.device/shared WARPCHECK_BIN=.device/warpcheck WARPCHECK_GRAPHS=.device/graphs \
    timeout 300 bash scripts/gpu_test.sh scc::colouring scc::the_gpu scc::gpu scc::the_command_stores \
    mec::the_gpu prob::the_gpu livelock::gpu 2>&1 | grep -E "^test |test result|panicked|assert" | head -60
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    $b/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp $b/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
for variant in after before after before; do
    bin=$b/scc_bench; [[ $variant == before ]] && bin=$b/scc_bench-before
    echo "== scc_bench $variant"
    SCC_BENCH_GPU_ONLY=1 timeout 120 $bin /tmp/graphs 2>&1 | grep -E "Coloring|DIFFERENT|same as"
done
for graph in /tmp/graphs/*.egr; do
    for run in 1 2 3; do
        echo "== ECL-SCC $(basename "$graph")"; /tmp/ecl-scc "$graph" | grep -E "compute time|number of SCCs"
    done
done
