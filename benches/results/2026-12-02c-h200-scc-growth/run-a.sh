#!/usr/bin/env bash
# Device call A (session 18): (1) GPU tests of this build (SCC colouring
# whose sweeps relax only the edges at states that grew; kernels kept on
# disk); (2) the kernel cache: `warpcheck scc` twice on one cache
# directory, the second run must compile nothing and print the same
# result; (3) scc_bench before (c6106fd1) and after, alternately, beside
# ECL-SCC. Carried: .device/s18 (xz'd binaries, mcc subset, graphs,
# ECL-SCC's source), .device/shared.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/graphs
exec > >(tee "$out/run-a.txt") 2>&1
d=.device/s18
nvidia-smi -L
for f in warpcheck tests scc_bench scc_bench_old; do xz -dc $d/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
cp /tmp/bin/tests .device/tests
export WARPCHECK_KERNEL_CACHE=/tmp/kernel-cache
echo "== GPU tests"
WARPCHECK_MCC=$d/mcc WARPCHECK_SHARED=.device/shared WARPCHECK_BIN=/tmp/bin/warpcheck WARPCHECK_GRAPHS=$d/graphs \
  timeout 240 bash scripts/gpu_test.sh scc::colouring scc::the_gpu scc::gpu scc::the_command_stores scc::explored \
  livelock::gpu mec::the_gpu prob::the_gpu 2>&1 | grep -E "^test |test result|panicked|assert" | head -60
echo "== kernel cache: two runs on a fresh directory"
for cache in /tmp/kc-fresh /tmp/kc-fresh; do
  /usr/bin/time -f "wall %e s" env WARPCHECK_KERNEL_CACHE=$cache /tmp/bin/warpcheck scc $d/mcc/Peterson-PT-3/model.pnml \
    --engine gpu --format json > /tmp/scc-$(ls $cache 2>/dev/null | wc -l).json
  echo "files in cache: $(ls $cache | wc -l), bytes $(du -sb $cache | cut -f1)"
done
for f in /tmp/scc-*.json; do echo "$f: $(grep -E '"(components|largest_component|trivial_components|bottom_components|decompose_seconds|explore_seconds)"' $f | tr -d ' \n')"; done
echo "== ECL-SCC build"
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    $d/ecl/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp $d/ecl/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
for rep in 1 2 3; do
  for v in old new; do
    b=/tmp/bin/scc_bench; [[ $v == old ]] && b=/tmp/bin/scc_bench_old
    echo "== scc_bench $v (rep $rep)"
    only=$([[ $rep == 1 ]] || echo none)
    SCC_BENCH_ONLY=$only SCC_BENCH_GPU_ONLY=1 timeout 150 $b /tmp/graphs $d/mcc/Peterson-PT-3 $d/mcc/Referendum-PT-0015 2>&1 \
      | grep -E "Coloring|DIFFERENT|same as|in place|panicked"
  done
  for g in /tmp/graphs/*.egr; do
    [[ $rep == 1 ]] || [[ $g == *PT* ]] || continue
    for r in 1 2 3; do echo "== ECL-SCC $(basename $g) $(/tmp/ecl-scc $g | grep -E "compute time")"; done
  done
done
