#!/usr/bin/env bash
# Device call E: SCC kernels in blocks of 512 threads (as ECL-SCC's; the
# grid then has half as many blocks) against 256: the SCC tests on the
# 512-thread build, then scc_bench of both builds alternately. Carried:
# .device/s14 (scc_bench and scc_bench-512, the 512 build's tests),
# .device/shared, .device/graphs, .device/f/mcc.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/graphs
exec > >(tee "$out/run-e.txt") 2>&1
nvidia-smi -L
for f in warpcheck scc_bench scc_bench-512 it-b6b0286d2a373a4d-512; do xz -dc .device/s14/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
cp /tmp/bin/it-b6b0286d2a373a4d-512 .device/tests
echo "== SCC tests, 512-thread build"
WARPCHECK_MCC=.device/f/mcc WARPCHECK_SHARED=.device/shared WARPCHECK_BIN=/tmp/bin/warpcheck WARPCHECK_GRAPHS=.device/graphs \
  timeout 60 bash scripts/gpu_test.sh scc::colouring scc::the_gpu scc::gpu scc::explored 2>&1 | grep -E "^test |test result|panicked|assert" | head
for rep in 1 2; do
  for v in "" -512; do
    echo "== scc_bench$v"
    only=$([[ $rep == 1 ]] || echo none)
    SCC_BENCH_ONLY=$only SCC_BENCH_GPU_ONLY=1 timeout 60 /tmp/bin/scc_bench$v /tmp/graphs \
      .device/f/mcc/Peterson-PT-3 .device/f/mcc/Referendum-PT-0015 2>&1 | grep -E "Coloring|DIFFERENT|same as|in place"
  done
done
