#!/usr/bin/env bash
# Device call A (session 21), issue 13: (1) GPU tests of this build
# (142532e7 plus the GROWTHS counter slot, which its kernels leave alone);
# (2) scc_bench with four kernel trees, alternately, beside ECL-SCC:
# base (the landed kernels), r (colouring's sweeps alternate between
# ascending and descending edge order), s (a block sweeps its share again
# while other blocks' sweeps grow labels, at most 4 idle sweeps in a row),
# rs (both). Carried: .device/s21 (xz'd stripped binaries, kernel trees,
# two MCC nets, ECL-SCC's source), .device/shared.tar.xz.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/graphs /tmp/shared
exec > >(tee "$out/run-a.txt") 2>&1
d=.device/s21
nvidia-smi -L
for f in warpcheck tests scc_bench; do xz -dc $d/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
tar -C /tmp/shared -xJf .device/shared.tar.xz
mkdir -p .device && cp /tmp/bin/tests .device/tests
start=$(date +%s)
echo "== GPU tests (base kernels)"
WARPCHECK_KERNEL_CACHE=/tmp/kc-base WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/warpcheck WARPCHECK_GRAPHS=/tmp/shared/graphs \
  timeout 200 bash scripts/gpu_test.sh scc::colouring scc::the_gpu scc::gpu scc::the_command_stores scc::explored \
  livelock::gpu mec::the_gpu prob::the_gpu 2>&1 | grep -E "^test |test result|panicked|assert|SKIPPED" | head -60
echo "GPU tests took $(( $(date +%s) - start )) s"
echo "== ECL-SCC build"
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    $d/ecl/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp $d/ecl/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
for rep in 1 2 3; do
  for v in base r s rs; do
    echo "== scc_bench $v (rep $rep)"
    if [[ $rep == 1 ]]; then only=grid; nets="$d/mcc/Peterson-PT-3 $d/mcc/Referendum-PT-0015"; else only=none; nets=$d/mcc/Peterson-PT-3; fi
    WARPCHECK_KERNEL_DIR=$PWD/$d/kv/$v WARPCHECK_KERNEL_CACHE=/tmp/kc-$v RUST_LOG=warpcheck::scc::gpu=debug \
      SCC_BENCH_ONLY=$only SCC_BENCH_GPU_ONLY=1 timeout 100 /tmp/bin/scc_bench /tmp/graphs $nets 2> /tmp/log-$v-$rep.txt \
      | grep -E "Coloring|DIFFERENT|same as|panicked"
    grep -E "Coloring|in place|panicked|error" /tmp/log-$v-$rep.txt | grep -v DEBUG
    (echo "== log $v $rep"; grep -v "generated edges" /tmp/log-$v-$rep.txt) >> /tmp/logs.txt
  done
  for g in /tmp/graphs/*.egr; do
    [[ $rep == 1 ]] || [[ $g == *Peterson* ]] || continue
    for r in 1 2 3; do echo "== ECL-SCC $(basename $g) $(timeout 60 /tmp/ecl-scc $g | grep -E "compute time")"; done
  done
  echo "elapsed $(( $(date +%s) - start )) s"
done
xz -c /tmp/logs.txt > "$out/logs-a.txt.xz"
