#!/usr/bin/env bash
# Device call C (session 21), issue 13: (1) GPU tests of this build
# (blocks resweep past a round's first colouring pass, as built in: kv/s1);
# (2) scc_bench of this build with three kernel trees that differ only in
# RESWEEP_AFTER_PASSES, beside ECL-SCC: never (the kernels of 142532e7),
# s0 (0: call A's and B's s), s1 (1, as built in); and two that also give
# each block a contiguous band of the edge list instead of every
# (blocks)-th stretch of 256 edges: b0 (resweep from pass 1), b1 (after
# 1). In order of need, since the call may run out of device time: the
# generated graphs and both nets with s1, ECL-SCC on them; the same with
# s0; the grid and Peterson-PT-3 with b1 and b0; the GPU tests with b1;
# Peterson-PT-3 alone with all five. Carried: .device/s21 (xz'd stripped binaries,
# kernel trees, two MCC nets, ECL-SCC's source), .device/shared.tar.xz.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/graphs /tmp/shared
exec > >(tee "$out/run-c.txt") 2>&1
d=.device/s21
nvidia-smi -L
for f in warpcheck tests scc_bench; do xz -dc $d/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
tar -C /tmp/shared -xJf .device/shared.tar.xz
mkdir -p .device && cp /tmp/bin/tests .device/tests
start=$(date +%s)
echo "== GPU tests (built-in kernels)"
WARPCHECK_KERNEL_CACHE=/tmp/kc-built-in WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/warpcheck WARPCHECK_GRAPHS=/tmp/shared/graphs \
  timeout 150 bash scripts/gpu_test.sh scc::colouring scc::the_gpu scc::gpu scc::the_command_stores scc::explored \
  livelock::gpu mec::the_gpu prob::the_gpu 2>&1 | grep -E "^test |test result|panicked|assert|SKIPPED" | head -60
echo "GPU tests took $(( $(date +%s) - start )) s"
echo "== ECL-SCC build"
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    $d/ecl/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp $d/ecl/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
bench() {  # variant, SCC_BENCH_ONLY, nets...
  local v=$1 only=$2; shift 2
  echo "== scc_bench $v ($only $(basename -a "$@" | tr '\n' ' '))"
  WARPCHECK_KERNEL_DIR=$PWD/$d/kv/$v WARPCHECK_KERNEL_CACHE=/tmp/kc-$v RUST_LOG=warpcheck::scc::gpu=debug \
    SCC_BENCH_ONLY=$only SCC_BENCH_GPU_ONLY=1 timeout 150 /tmp/bin/scc_bench /tmp/graphs "$@" 2> /tmp/log.txt \
    | grep -E "Coloring|DIFFERENT|same as|panicked"
  grep -E "Coloring|in place|panicked|error" /tmp/log.txt | grep -v DEBUG
  (echo "== log $v $only"; grep -v "generated edges" /tmp/log.txt) >> "$out/logs-c.txt"
}
ecl() {  # graphs...
  for g in "$@"; do for r in 1 2 3; do echo "== ECL-SCC $(basename $g) $(timeout 60 /tmp/ecl-scc $g | grep -E "compute time")"; done; done
}
bench s1 "" $d/mcc/Peterson-PT-3 $d/mcc/Referendum-PT-0015
ecl /tmp/graphs/*.egr
echo "elapsed $(( $(date +%s) - start )) s"
bench s0 "" $d/mcc/Peterson-PT-3 $d/mcc/Referendum-PT-0015
for v in b1 b0; do bench $v grid $d/mcc/Peterson-PT-3; done
ecl /tmp/graphs/Peterson-PT-3.egr
echo "elapsed $(( $(date +%s) - start )) s"
if (( $(date +%s) - start < 360 )); then
  echo "== GPU tests (kernels b1)"
  WARPCHECK_KERNEL_DIR=$PWD/$d/kv/b1 WARPCHECK_KERNEL_CACHE=/tmp/kc-b1 WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/warpcheck \
    WARPCHECK_GRAPHS=/tmp/shared/graphs timeout 100 bash scripts/gpu_test.sh scc::colouring scc::the_gpu scc::gpu \
    scc::the_command_stores scc::explored livelock::gpu mec::the_gpu prob::the_gpu 2>&1 \
    | grep -E "^test |test result|panicked|assert|SKIPPED" | head -60
  echo "elapsed $(( $(date +%s) - start )) s"
fi
for v in never s0 s1 b0 b1; do
  (( $(date +%s) - start < 440 )) && bench $v none $d/mcc/Peterson-PT-3
done
ecl /tmp/graphs/Peterson-PT-3.egr
echo "elapsed $(( $(date +%s) - start )) s"
