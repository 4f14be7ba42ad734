#!/usr/bin/env bash
# Device call B (session 20), issue 13: each colouring round's passes on
# Peterson-PT-3 (RUST_LOG debug log of scc_bench), for this build ("b":
# batches of 2 doubling to 16, trimming after 32 passes) and a variant
# ("b64": trimming after 64), alternately, beside ECL-SCC. Carried:
# .device/s20.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/graphs
exec > >(tee "$out/run-b.txt") 2>&1
d=.device/s20
nvidia-smi -L
for f in scc_bench scc_bench_b64; do xz -dc $d/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
export WARPCHECK_KERNEL_CACHE=/tmp/kernel-cache
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    $d/ecl/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp $d/ecl/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
start=$(date +%s)
for rep in 1 2 3 4 5; do
  for v in b b64; do
    b=/tmp/bin/scc_bench; [[ $v == b64 ]] && b=/tmp/bin/scc_bench_b64
    echo "== scc_bench $v (rep $rep)"
    RUST_LOG=warpcheck::scc=debug SCC_BENCH_ONLY=none SCC_BENCH_GPU_ONLY=1 timeout 60 $b /tmp/graphs $d/mcc/Peterson-PT-3 \
      2> "$out/log-$v-$rep.txt" | grep -E "Coloring|DIFFERENT|same as|panicked"
    grep -E "Coloring|DIFFERENT|panicked" "$out/log-$v-$rep.txt"
    xz -f "$out/log-$v-$rep.txt"
  done
  for r in 1 2 3; do echo "== ECL-SCC Peterson $(/tmp/ecl-scc /tmp/graphs/Peterson-PT-3.egr | grep -E "compute time")"; done
  echo "elapsed $(( $(date +%s) - start )) s"
done
