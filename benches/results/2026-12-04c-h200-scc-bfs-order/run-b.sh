#!/usr/bin/env bash
# Call B (session 37), issue 13: the generated graphs (random, R-MAT, grid)
# as generated and renumbered in breadth-first order on the host (scratch
# SCC_BENCH_BFS), ECL-SCC beside on both CSRs.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/graphs
exec > >(tee "$out/run-b.txt") 2>&1
d=.device/s37
start=$(date +%s)
nvidia-smi -L; cat $d/BUILD
xz -dc $d/scc_bench.xz > /tmp/bin/scc_bench && chmod +x /tmp/bin/scc_bench
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    $d/ecl/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp $d/ecl/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
bench() {  # label, env...
  local label=$1; shift
  echo "== scc_bench $label"
  env "$@" RUST_LOG=warpcheck::scc::gpu=debug SCC_BENCH_GPU_ONLY=1 timeout 200 \
    /tmp/bin/scc_bench /tmp/graphs 2> /tmp/log.txt
  grep -E " Coloring:|panicked|error" /tmp/log.txt
  (echo "== log $label"; cat /tmp/log.txt) >> "$out/logs-b.txt"
  echo "elapsed $(( $(date +%s) - start )) s"
}
ecl() { for r in $(seq ${2:-3}); do echo "== ECL-SCC $(basename $1) $(timeout 60 /tmp/ecl-scc $1 | grep -E "compute time")"; done; }
bench generated X=1
bench bfs-order SCC_BENCH_BFS=1
for f in /tmp/graphs/*.egr; do ecl $f 2; done
echo "elapsed $(( $(date +%s) - start )) s"
xz -9 "$out/logs-b.txt"
