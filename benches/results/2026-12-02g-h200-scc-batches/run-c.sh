#!/usr/bin/env bash
# Device call C (session 20), issue 13: colouring passes whose blocks
# sweep their share again while other blocks' labels grow (a counter of
# growing sweeps, GROWTHS), at most K sweeps in a row that grow nothing:
# "b" this build's kernels (no re-sweeps), "e1" K = 4 with plain loads,
# "e2" K = 4 with loads through L2 (__ldcg), "e3" K = 16 with __ldcg.
# The grid and Peterson-PT-3 first, then Peterson-PT-3 alone. One
# scc_bench binary (with the GROWTHS slot), the kernels swapped by WARPCHECK_KERNEL_DIR;
# variants alternately, beside ECL-SCC; then, while time is left, the
# variants' SCC and MEC GPU tests (b's kernels passed them in call A).
# Carried: .device/s20, .device/shared.tar.xz.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/graphs
exec > >(tee "$out/run-c.txt") 2>&1
d=.device/s20
nvidia-smi -L
for f in tests scc_bench; do xz -dc $d/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
mkdir -p /tmp/shared && tar -C /tmp/shared -xJf .device/shared.tar.xz
cp /tmp/bin/tests .device/tests
t0=$(date +%s)
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    $d/ecl/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp $d/ecl/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
start=$(date +%s)
for rep in 1 2 3; do
  for v in b e1 e2 e3; do
    echo "== scc_bench $v (rep $rep)"
    only=$([[ $rep == 1 ]] && echo grid || echo none)
    echo "== $v rep $rep" >> /tmp/logs.txt
    WARPCHECK_KERNEL_DIR=$PWD/$d/kv/$v WARPCHECK_KERNEL_CACHE=/tmp/kc-$v RUST_LOG=warpcheck::scc=debug \
      SCC_BENCH_ONLY=$only SCC_BENCH_GPU_ONLY=1 timeout 100 /tmp/bin/scc_bench /tmp/graphs $d/mcc/Peterson-PT-3 \
      2> /tmp/log.txt | grep -E "DIFFERENT|same as|panicked"
    grep -E "Coloring|DIFFERENT|panicked|rror" /tmp/log.txt
    cat /tmp/log.txt >> /tmp/logs.txt
  done
  for g in /tmp/graphs/*.egr; do
    [[ $rep == 1 ]] || [[ $g == *Peterson* ]] || continue
    for r in 1 2 3; do echo "== ECL-SCC $(basename $g) $(/tmp/ecl-scc $g | grep -E "compute time")"; done
  done
  echo "elapsed $(( $(date +%s) - start )) s"
done
sed 's/\x1b\[[0-9;]*m//g' /tmp/logs.txt | xz > "$out/logs.txt.xz"
# The re-sweeping variants' own GPU tests, while time is left.
for v in e1 e2 e3; do
  [[ $(( $(date +%s) - t0 )) -lt 300 ]] || break
  echo "== GPU tests, kernels $v"
  WARPCHECK_KERNEL_DIR=$PWD/$d/kv/$v WARPCHECK_KERNEL_CACHE=/tmp/kc-$v WARPCHECK_SHARED=/tmp/shared WARPCHECK_GRAPHS=/tmp/shared/graphs \
    timeout 45 bash scripts/gpu_test.sh scc::the_gpu scc::gpu scc::colouring mec::the_gpu 2>&1 | grep -E "^test |test result|panicked|assert" | head -20
done
