#!/usr/bin/env bash
# Call D (session 37), issue 13: colouring renumbers graphs of short rows
# breadth-first, level by level on the device (Renumbering::Auto; call C found states through a work list instead, which was slower).
# GPU tests of SCC, MEC and livelock first; then scc_bench (colouring
# auto, forward-backward, colouring in the graph's numbering on stderr)
# on the generated graphs and on Peterson-PT-3 and Referendum-PT-0015,
# with ECL-SCC beside on the same CSRs.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/graphs /tmp/shared
exec > >(tee "$out/run-d.txt") 2>&1
d=.device/s37
start=$(date +%s)
nvidia-smi -L; cat $d/BUILD
for f in warpcheck tests scc_bench; do xz -dc $d/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
tar -C /tmp/shared --strip-components=1 -xJf $d/shared.tar.xz
cp /tmp/bin/tests .device/tests
echo "== GPU tests $(date -u +%T)"
WARPCHECK_MCC=/tmp/shared/mcc WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/warpcheck WARPCHECK_GRAPHS=/tmp/shared/graphs \
  timeout 200 bash scripts/gpu_test.sh scc::colouring scc::the_gpu scc::gpu scc::the_command_stores scc::explored \
  livelock::gpu mec::the_gpu > /tmp/tests.txt 2>&1
echo "tests rc=$?"
grep -E -A3 "^test |test result|panicked|assert|SKIPPED" /tmp/tests.txt | grep -v "^\s*$" | grep -v " ok$" | head -60
echo "GPU tests took $(( $(date +%s) - start )) s"
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    $d/ecl/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp $d/ecl/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
bench() {  # SCC_BENCH_ONLY, nets...
  local only=$1; shift
  echo "== scc_bench ($only $(basename -a "$@" 2>/dev/null | tr '\n' ' '))"
  RUST_LOG=warpcheck::scc::gpu=debug SCC_BENCH_ONLY=$only SCC_BENCH_GPU_ONLY=1 timeout 200 \
    /tmp/bin/scc_bench /tmp/graphs "$@" 2> /tmp/log.txt | grep -v "^graph"
  grep -E " Coloring|panicked|error|in place" /tmp/log.txt
  (echo "== log $only"; grep -v "generated edges" /tmp/log.txt) >> "$out/logs-d.txt"
}
ecl() { for r in $(seq ${2:-3}); do echo "== ECL-SCC $(basename $1) $(timeout 60 /tmp/ecl-scc $1 | grep -E "compute time")"; done; }
left() { (( $(date +%s) - start < $1 )); }
for rep in 1 2 3; do
  left 420 || break
  bench none /tmp/shared/mcc/Peterson-PT-3 /tmp/shared/mcc/Referendum-PT-0015
  ecl /tmp/graphs/Peterson-PT-3.egr 3
  ecl /tmp/graphs/Referendum-PT-0015.egr 2
  echo "elapsed $(( $(date +%s) - start )) s"
done
left 480 && { bench "" ; for f in /tmp/graphs/{random,rmat,grid}*.egr; do ecl $f 2; done; }
echo "took $(( $(date +%s) - start )) s"
xz -9 "$out/logs-d.txt"
