#!/usr/bin/env bash
# Device call D (session 22), issue 13: Peterson-PT-3 only, the built-in
# colouring (binaries of call B) and ECL-SCC alternately, six processes of
# ours (each best of 3) and 18 runs of ECL-SCC, for the spread of both in
# one call. Carried: .device/s22.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/graphs
exec > >(tee "$out/run-d.txt") 2>&1
d=.device/s22
nvidia-smi -L
xz -dc $d/scc_bench.xz > /tmp/bin/scc_bench && chmod +x /tmp/bin/scc_bench
start=$(date +%s)
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    $d/ecl/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp $d/ecl/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
for round in 1 2 3 4 5 6; do
  echo "== scc_bench built-in (none Peterson-PT-3 ) $round"
  WARPCHECK_KERNEL_CACHE=/tmp/kc RUST_LOG=warpcheck::scc::gpu=debug SCC_BENCH_ONLY=none SCC_BENCH_GPU_ONLY=1 \
    timeout 120 /tmp/bin/scc_bench /tmp/graphs $d/mcc/Peterson-PT-3 2> /tmp/log.txt | grep -E "same as|DIFFERENT|panicked"
  grep -E " Coloring:|panicked|error" /tmp/log.txt
  (echo "== log built-in none $round"; cat /tmp/log.txt) >> "$out/logs-d.txt"
  for r in 1 2 3; do echo "== ECL-SCC Peterson-PT-3 $(timeout 60 /tmp/ecl-scc /tmp/graphs/Peterson-PT-3.egr | grep -E "compute time")"; done
done
echo "elapsed $(( $(date +%s) - start )) s"
