#!/usr/bin/env bash
# Device call D: the GPU tests of the final code (prob, MEC, SCC, livelock:
# the waves' driver shared by MEC and the precomputations), the SCC tests
# again with colouring's passes storing labels by plain stores (k-store,
# as ECL-SCC does) instead of atomicMax, then scc_bench with k-old and
# k-store alternately beside ECL-SCC. Carried: .device/s14,
# .device/shared, .device/graphs, .device/f/mcc, .device/a/ecl.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/graphs
exec > >(tee "$out/run-d.txt") 2>&1
nvidia-smi -L
for f in warpcheck tests scc_bench; do xz -dc .device/s14/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
cp /tmp/bin/tests .device/tests
tests="scc::colouring scc::the_gpu scc::gpu scc::the_command_stores scc::explored livelock::gpu"
echo "== GPU tests, final binary (embedded kernels)"
WARPCHECK_MCC=.device/f/mcc WARPCHECK_SHARED=.device/shared WARPCHECK_BIN=/tmp/bin/warpcheck WARPCHECK_GRAPHS=.device/graphs \
  timeout 150 bash scripts/gpu_test.sh prob::the_gpu mec::the_gpu $tests 2>&1 | grep -E "^test |test result|panicked|assert" | head -30
echo "== SCC tests, k-store"
WARPCHECK_KERNEL_DIR=.device/s14/k-store WARPCHECK_MCC=.device/f/mcc WARPCHECK_SHARED=.device/shared WARPCHECK_BIN=/tmp/bin/warpcheck \
  WARPCHECK_GRAPHS=.device/graphs timeout 120 bash scripts/gpu_test.sh $tests 2>&1 | grep -E "^test |test result|panicked|assert" | head -30
for rep in 1 2; do
  for v in old store; do
    echo "== scc_bench kernels $v"
    only=$([[ $rep == 1 ]] || echo none)
    WARPCHECK_KERNEL_DIR=.device/s14/k-$v SCC_BENCH_ONLY=$only SCC_BENCH_GPU_ONLY=1 timeout 120 /tmp/bin/scc_bench /tmp/graphs \
      .device/f/mcc/Peterson-PT-3 .device/f/mcc/Referendum-PT-0015 2>&1 | grep -E "Coloring|DIFFERENT|same as|in place"
  done
done
ecl=.device/a/ecl
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    $ecl/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp $ecl/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
for g in /tmp/graphs/*.egr; do for r in 1 2 3; do echo "== ECL-SCC $(basename $g) $(/tmp/ecl-scc $g | grep -E "compute time")"; done; done
