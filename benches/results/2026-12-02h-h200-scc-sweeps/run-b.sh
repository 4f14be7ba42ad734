#!/usr/bin/env bash
# Device call B (session 21), issue 13: (1) GPU tests of this build
# (resweeping from a round's third colouring pass: kernels as built in,
# the same as kv/sa); (2) scc_bench with three kernel trees of this build,
# alternately, beside ECL-SCC: base (never resweeps: the kernels of
# 142532e7), s (resweeps from a round's first pass, call A's s), sa (from
# its third, as built in); (3) if time is left, the GPU tests with s. Carried: .device/s21 (xz'd stripped binaries, kernel trees,
# two MCC nets, ECL-SCC's source), .device/shared.tar.xz.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/graphs /tmp/shared
exec > >(tee "$out/run-b.txt") 2>&1
d=.device/s21
nvidia-smi -L
for f in warpcheck tests scc_bench; do xz -dc $d/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
tar -C /tmp/shared -xJf .device/shared.tar.xz
mkdir -p .device && cp /tmp/bin/tests .device/tests
start=$(date +%s)
echo "== GPU tests (built-in kernels)"
WARPCHECK_KERNEL_CACHE=/tmp/kc-built-in WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/warpcheck WARPCHECK_GRAPHS=/tmp/shared/graphs \
  timeout 200 bash scripts/gpu_test.sh scc::colouring scc::the_gpu scc::gpu scc::the_command_stores scc::explored \
  livelock::gpu mec::the_gpu prob::the_gpu 2>&1 | grep -E "^test |test result|panicked|assert|SKIPPED" | head -60
echo "GPU tests took $(( $(date +%s) - start )) s"
echo "== ECL-SCC build"
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    $d/ecl/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp $d/ecl/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
for rep in 1 2 3 4; do
  for v in base s sa; do
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
xz -c /tmp/logs.txt > "$out/logs-b.txt.xz"
