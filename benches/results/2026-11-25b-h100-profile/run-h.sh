#!/usr/bin/env bash
# Device call H (final code): the GPU tests of every area this session
# touched (SCC, MEC, livelock, prob, parity's GPU SPM), then scc_bench
# before (main at 1dcdf34) and after, twice each, beside ECL-SCC.
# Carried: .device/b32 (xz'd binaries and test data), .device/b26 (ECL-SCC source).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/profile-out}
b=.device/b32
mkdir -p "$out" /tmp/bin /tmp/graphs
exec > >(tee "$out/run-h.txt") 2>&1
nvidia-smi -L
for f in warpcheck tests scc_bench scc_bench-before; do xz -dc $b/$f.xz > /tmp/bin/$f; chmod +x /tmp/bin/$f; done
tar -C .device -xJf $b/data.tar.xz
cp /tmp/bin/tests .device/tests
WARPCHECK_MCC=.device/b27/mcc WARPCHECK_SHARED=.device/shared WARPCHECK_BIN=/tmp/bin/warpcheck WARPCHECK_GRAPHS=.device/graphs \
    timeout 250 bash scripts/gpu_test.sh scc::colouring scc::the_gpu scc::gpu scc::the_command_stores scc::explored \
    mec::the_gpu livelock::gpu prob::the_gpu parity_gpu::gpu_spm_equals gpu::random_networks 2>&1 \
    | grep -E "^test |test result|panicked|assert" | head -60
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    .device/b26/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp .device/b26/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
mcc=.device/b27/mcc
for variant in before after before after; do
    echo "== scc_bench $variant"
    SCC_BENCH_GPU_ONLY=1 timeout 100 /tmp/bin/scc_bench$([[ $variant == before ]] && echo -before) /tmp/graphs \
        $mcc/Peterson-PT-3 $mcc/Referendum-PT-0015 2>&1 | grep -E "Coloring|DIFFERENT|same as|in place"
done
for graph in /tmp/graphs/*.egr; do
    for run in 1 2 3; do
        echo "== ECL-SCC $(basename "$graph")"; /tmp/ecl-scc "$graph" | grep -E "compute time"
    done
done
