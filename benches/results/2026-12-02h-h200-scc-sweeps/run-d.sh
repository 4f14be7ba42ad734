#!/usr/bin/env bash
# Device call D (session 21), issue 13, the binaries and kernel trees of
# call C (which never started), for less device time: the GPU tests of
# the built-in kernels (s1), then scc_bench with s1 and s0 alternately on
# Peterson-PT-3 beside ECL-SCC, then s1 on the other graphs beside
# ECL-SCC, as far as the device time goes. Carried: .device/s21,
# .device/shared.tar.xz.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/graphs /tmp/shared
exec > >(tee "$out/run-d.txt") 2>&1
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
  (echo "== log $v $only"; grep -v "generated edges" /tmp/log.txt) >> "$out/logs-d.txt"
}
ecl() {  # graphs...
  for g in "$@"; do for r in 1 2 3; do echo "== ECL-SCC $(basename $g) $(timeout 60 /tmp/ecl-scc $g | grep -E "compute time")"; done; done
}
for v in s1 s0 s1 s0; do bench $v none $d/mcc/Peterson-PT-3; ecl /tmp/graphs/Peterson-PT-3.egr; done
echo "elapsed $(( $(date +%s) - start )) s"
for g in random rmat grid; do bench s1 $g; ecl /tmp/graphs/$g*.egr; done
echo "elapsed $(( $(date +%s) - start )) s"
bench s1 none $d/mcc/Referendum-PT-0015; ecl /tmp/graphs/Referendum-PT-0015.egr
bench s0 none $d/mcc/Referendum-PT-0015
echo "elapsed $(( $(date +%s) - start )) s"
