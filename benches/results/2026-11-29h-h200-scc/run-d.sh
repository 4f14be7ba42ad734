#!/usr/bin/env bash
# Device call D: colouring reads its labels with plain loads (L1 may
# serve them) instead of __ldcg (L2 only), as ECL-SCC does. The GPU tests
# of SCC, MEC and livelock on the new build, then scc_bench before (main
# at 7086c28) and after, alternately, twice each, on every generated graph
# and on Peterson-PT-3 and Referendum-PT-0015, beside ECL-SCC (3 runs a
# graph). Carried: .device/c (xz'd binaries), .device/a/ecl,
# .device/shared, .device/graphs, the two MCC models.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
ecl=.device/a/ecl
mkdir -p "$out" /tmp/bin /tmp/graphs
exec > >(tee "$out/run-d.txt") 2>&1
nvidia-smi -L
for f in warpcheck tests scc_bench scc_bench-before; do xz -dc .device/c/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
cp /tmp/bin/tests .device/tests
WARPCHECK_MCC=.device/c/mcc WARPCHECK_SHARED=.device/shared WARPCHECK_BIN=/tmp/bin/warpcheck WARPCHECK_GRAPHS=.device/graphs \
    timeout 240 bash scripts/gpu_test.sh scc::colouring scc::the_gpu scc::gpu scc::the_command_stores scc::explored \
    mec::the_gpu livelock::gpu 2>&1 | grep -E "^test |test result|panicked|assert" | head -40
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    $ecl/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp $ecl/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
for variant in before after before after; do
    echo "== scc_bench $variant"
    SCC_BENCH_GPU_ONLY=1 timeout 120 /tmp/bin/scc_bench$([[ $variant == before ]] && echo -before) /tmp/graphs \
        .device/c/mcc/Peterson-PT-3 .device/c/mcc/Referendum-PT-0015 2>&1 | grep -E "Coloring|DIFFERENT|same as|in place"
done
for graph in /tmp/graphs/*.egr; do
    for run in 1 2 3; do
        echo "== ECL-SCC $(basename "$graph") $(/tmp/ecl-scc "$graph" | grep -E "compute time")"
    done
done
