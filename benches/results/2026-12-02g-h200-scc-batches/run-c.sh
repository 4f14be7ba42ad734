#!/usr/bin/env bash
# Device call C (session 20), issue 13, kept short (little device time was
# left): (1) the SCC and MEC GPU tests of this build, where an untrimmed
# run trims only after its first round (not a later one) runs past 32
# passes; (2) Peterson-PT-3 once with b (the kernels of call A) and with
# colouring passes whose blocks sweep their share again while other
# blocks' labels grow (a counter of growing sweeps, GROWTHS), at most 4
# sweeps in a row that grow nothing: "e1" with plain loads, "e2" with
# loads through L2 (__ldcg); beside ECL-SCC. One scc_bench binary (this
# build plus the GROWTHS slot), the kernels swapped by
# WARPCHECK_KERNEL_DIR. Carried: .device/s20, .device/shared.tar.xz.
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
echo "== GPU tests, kernels b"
WARPCHECK_KERNEL_DIR=$PWD/$d/kv/b WARPCHECK_KERNEL_CACHE=/tmp/kc-b WARPCHECK_SHARED=/tmp/shared WARPCHECK_GRAPHS=/tmp/shared/graphs \
  timeout 60 bash scripts/gpu_test.sh scc::the_gpu scc::gpu scc::colouring scc::explored mec::the_gpu 2>&1 \
  | grep -E "^test |test result|panicked|assert" | head -20
echo "elapsed $(( $(date +%s) - t0 )) s"
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    $d/ecl/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp $d/ecl/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu &
for v in b e1 e2; do
  echo "== scc_bench $v"
  WARPCHECK_KERNEL_DIR=$PWD/$d/kv/$v WARPCHECK_KERNEL_CACHE=/tmp/kc-$v RUST_LOG=warpcheck::scc=debug \
    SCC_BENCH_ONLY=none SCC_BENCH_GPU_ONLY=1 timeout 40 /tmp/bin/scc_bench /tmp/graphs $d/mcc/Peterson-PT-3 \
    2> /tmp/log.txt | grep -E "DIFFERENT|same as|panicked"
  grep -E "Coloring|DIFFERENT|panicked|rror" /tmp/log.txt
  { echo "== $v"; cat /tmp/log.txt; } >> /tmp/logs.txt
done
wait
for r in 1 2 3; do echo "== ECL-SCC Peterson $(/tmp/ecl-scc /tmp/graphs/Peterson-PT-3.egr | grep -E "compute time")"; done
echo "elapsed $(( $(date +%s) - t0 )) s"
sed 's/\x1b\[[0-9;]*m//g' /tmp/logs.txt | xz > "$out/logs-c.txt.xz"
