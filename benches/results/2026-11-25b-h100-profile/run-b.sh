#!/usr/bin/env bash
# Device call B: the GPU tests of this build (trimming's count with chains
# continued in one thread, colouring's new first start, the summary's warp
# sums), then scc_bench before (main at 1dcdf34) and after, with the
# experiment's pass limits (WARPCHECK_SCC_TRIM_AFTER: passes of a first
# round before trimming; WARPCHECK_SCC_HOST_AFTER: passes of a small
# trimmed round before Tarjan on the host), ECL-SCC beside them.
# Carried: .device/b27 (tests, warpcheck, scc_bench, scc_bench-before,
# two MCC nets), .device/b26 (ECL-SCC source), .device/shared, .device/graphs.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/profile-out}
b=.device/b27
mkdir -p "$out" /tmp/graphs
exec > >(tee "$out/run-b.txt") 2>&1
nvidia-smi -L
cp $b/tests .device/tests
WARPCHECK_MCC=$b/mcc WARPCHECK_SHARED=.device/shared WARPCHECK_BIN=$b/warpcheck WARPCHECK_GRAPHS=.device/graphs \
    timeout 200 bash scripts/gpu_test.sh scc::colouring scc::the_gpu scc::gpu scc::the_command_stores scc::explored \
    mec::the_gpu livelock::gpu 2>&1 | grep -E "^test |test result|panicked|assert" | head -60
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    .device/b26/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp .device/b26/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
bench() {  # label, binary, env...
    local label=$1 bin=$2; shift 2
    echo "== scc_bench $label"
    env "$@" SCC_BENCH_GPU_ONLY=1 timeout 110 $bin /tmp/graphs $b/mcc/Peterson-PT-3 $b/mcc/Referendum-PT-0015 2>&1 \
        | grep -E "Coloring|DIFFERENT|same as|in place"
}
bench before $b/scc_bench-before
bench "after 32/32" $b/scc_bench
bench "after 8/4" $b/scc_bench WARPCHECK_SCC_TRIM_AFTER=8 WARPCHECK_SCC_HOST_AFTER=4
bench "after 4/4" $b/scc_bench WARPCHECK_SCC_TRIM_AFTER=4 WARPCHECK_SCC_HOST_AFTER=4
for graph in /tmp/graphs/*.egr; do
    for run in 1 2 3; do
        echo "== ECL-SCC $(basename "$graph")"; /tmp/ecl-scc "$graph" | grep -E "compute time|number of SCCs"
    done
done
