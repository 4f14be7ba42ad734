#!/usr/bin/env bash
# Device call A (session 20), issue 13: (1) GPU tests of this build
# (colouring's passes launched in batches, a pass after the one that grew
# nothing returning at once); (2) scc_bench of HEAD 2548d8eb ("old"), of
# this build ("b": batches of 2 doubling to 16) and of a variant ("c": 4
# doubling to 32), alternately, beside ECL-SCC. Carried: .device/s20
# (xz'd stripped binaries, two MCC nets, ECL-SCC's source),
# .device/shared.tar.xz (../shared/graphs and ../shared/prob).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/graphs /tmp/shared
exec > >(tee "$out/run-a.txt") 2>&1
d=.device/s20
nvidia-smi -L
for f in warpcheck tests scc_bench scc_bench_old scc_bench_c; do xz -dc $d/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
tar -C /tmp/shared -xJf .device/shared.tar.xz
mkdir -p .device && cp /tmp/bin/tests .device/tests
export WARPCHECK_KERNEL_CACHE=/tmp/kernel-cache
echo "== GPU tests"
start=$(date +%s)
WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/warpcheck WARPCHECK_GRAPHS=/tmp/shared/graphs \
  timeout 220 bash scripts/gpu_test.sh scc::colouring scc::the_gpu scc::gpu scc::the_command_stores scc::explored \
  livelock::gpu mec::the_gpu prob::the_gpu 2>&1 | grep -E "^test |test result|panicked|assert|SKIPPED" | head -60
echo "GPU tests took $(( $(date +%s) - start )) s"
echo "== ECL-SCC build"
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    $d/ecl/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp $d/ecl/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
for rep in 1 2 3; do
  for v in old b c; do
    b=/tmp/bin/scc_bench; [[ $v == old ]] && b=/tmp/bin/scc_bench_old; [[ $v == c ]] && b=/tmp/bin/scc_bench_c
    echo "== scc_bench $v (rep $rep)"
    only=$([[ $rep == 1 ]] || echo none)
    SCC_BENCH_ONLY=$only SCC_BENCH_GPU_ONLY=1 timeout 120 $b /tmp/graphs $d/mcc/Peterson-PT-3 $d/mcc/Referendum-PT-0015 2>&1 \
      | grep -E "Coloring|DIFFERENT|same as|in place|panicked"
  done
  for g in /tmp/graphs/*.egr; do
    [[ $rep == 1 ]] || [[ $g == *PT* ]] || continue
    for r in 1 2 3; do echo "== ECL-SCC $(basename $g) $(/tmp/ecl-scc $g | grep -E "compute time")"; done
  done
  echo "elapsed $(( $(date +%s) - start )) s"
done
