#!/usr/bin/env bash
# Device call E: a source is stamped in leaves_seen once a pass (read
# before written), not once a leaving edge. The GPU tests
# of SCC, MEC and livelock on the new build, then scc_bench before (main
# at fa81944) and after, alternately, twice each, on the random graph
# and on Peterson-PT-3 and Referendum-PT-0015, beside ECL-SCC (3 runs a
# graph). Carried: .device/e (xz'd binaries), .device/a/ecl,
# .device/shared, .device/graphs, the two MCC models.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
ecl=.device/a/ecl
mkdir -p "$out" /tmp/bin /tmp/graphs
exec > >(tee "$out/run-e.txt") 2>&1
nvidia-smi -L
for f in warpcheck tests scc_bench scc_bench-before; do xz -dc .device/e/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
cp /tmp/bin/tests .device/tests
WARPCHECK_MCC=.device/e/mcc WARPCHECK_SHARED=.device/shared WARPCHECK_BIN=/tmp/bin/warpcheck WARPCHECK_GRAPHS=.device/graphs \
    timeout 240 bash scripts/gpu_test.sh scc::colouring scc::the_gpu scc::gpu scc::the_command_stores scc::explored \
    mec::the_gpu livelock::gpu 2>&1 | grep -E "^test |test result|panicked|assert" | head -40
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    $ecl/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp $ecl/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
for variant in before after before after; do
    echo "== scc_bench $variant"
    SCC_BENCH_ONLY=random SCC_BENCH_GPU_ONLY=1 timeout 120 /tmp/bin/scc_bench$([[ $variant == before ]] && echo -before) /tmp/graphs \
        .device/e/mcc/Peterson-PT-3 .device/e/mcc/Referendum-PT-0015 2>&1 | grep -E "Coloring|DIFFERENT|same as|in place"
done
for graph in /tmp/graphs/random-1e7-5e7.egr /tmp/graphs/Peterson-PT-3.egr; do
    for run in 1 2 3; do
        echo "== ECL-SCC $(basename "$graph") $(/tmp/ecl-scc "$graph" | grep -E "compute time")"
    done
done
