#!/usr/bin/env bash
# Call A (session 37), issue 13: colouring on the explored state spaces of
# Peterson-PT-3 and Referendum-PT-0015 numbered as the explorer numbers
# them (slot order) and renumbered in breadth-first order on the host
# (scratch SCC_BENCH_BFS in scc_bench), ECL-SCC beside on both CSRs.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/graphs
exec > >(tee "$out/run-a.txt") 2>&1
d=.device/s37
start=$(date +%s)
nvidia-smi -L; cat $d/BUILD
xz -dc $d/scc_bench.xz > /tmp/bin/scc_bench && chmod +x /tmp/bin/scc_bench
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    $d/ecl/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp $d/ecl/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
bench() {  # label, env..., nets
  local label=$1; shift
  echo "== scc_bench $label"
  env "$@" RUST_LOG=warpcheck::scc::gpu=debug SCC_BENCH_ONLY=none SCC_BENCH_GPU_ONLY=1 timeout 150 \
    /tmp/bin/scc_bench /tmp/graphs $d/mcc/Peterson-PT-3 $d/mcc/Referendum-PT-0015 2> /tmp/log.txt
  grep -E " Coloring:|panicked|error|decomposed in place" /tmp/log.txt
  (echo "== log $label"; grep -v "generated edges" /tmp/log.txt) >> "$out/logs-a.txt"
}
ecl() { for r in $(seq ${2:-3}); do echo "== ECL-SCC $(basename $1) $(timeout 60 /tmp/ecl-scc $1 | grep -E "compute time")"; done; }
for rep in 1 2; do
  bench slot-order X=1
  bench bfs-order SCC_BENCH_BFS=1
  for g in Peterson-PT-3 Peterson-PT-3-bfs Referendum-PT-0015 Referendum-PT-0015-bfs; do ecl /tmp/graphs/$g.egr 3; done
  echo "elapsed $(( $(date +%s) - start )) s"
done
xz -9 "$out/logs-a.txt"
