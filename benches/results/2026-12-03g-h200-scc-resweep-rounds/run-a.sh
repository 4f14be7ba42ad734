#!/usr/bin/env bash
# Device call A (session 29), issue 13: where blocks resweep. Built in:
# from a round's second pass (session 28's final kernels, 2eb6926c).
# kv/r0: from every round's first pass (session 28's r0: best on
# Peterson-PT-3, 5.5 ms slower on Referendum-PT-0015). kv/r2: from the
# first pass of every round but the first on the whole edge list
# (`p.edge_count < p.edges`), where L1 serves the first sweep. GPU tests
# (SCC, livelock, MEC) with r2 first; then Peterson-PT-3 in turn with
# ECL-SCC, then Referendum-PT-0015, R-MAT and the random graph, as far as
# the device time goes.
# Carried: .device/s28c (2eb6926c's binaries, the trees, ECL-SCC 8e67732,
# the two nets), .device/shared.tar.xz.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/graphs /tmp/shared
exec > >(tee "$out/run-a.txt") 2>&1
d=.device/s28c
start=$(date +%s)
nvidia-smi -L; cat $d/BUILD
for f in warpcheck tests scc_bench; do xz -dc $d/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
tar -C /tmp/shared -xJf .device/shared.tar.xz
cp /tmp/bin/tests .device/tests
echo "== GPU tests, tree r2 $(date -u +%T)"
WARPCHECK_KERNEL_DIR=$PWD/$d/kv/r2 WARPCHECK_KERNEL_CACHE=/tmp/kc-r2 WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/warpcheck \
  WARPCHECK_GRAPHS=/tmp/shared/graphs timeout 100 bash scripts/gpu_test.sh scc::colouring scc::the_gpu scc::gpu \
  scc::the_command_stores scc::explored livelock::gpu mec::the_gpu > /tmp/tests.txt 2>&1
echo "tests rc=$?"
grep -E -A3 "^test |test result|panicked|assert|SKIPPED" /tmp/tests.txt | grep -v "^\s*$" | head -80
echo "GPU tests took $(( $(date +%s) - start )) s"
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    $d/ecl/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp $d/ecl/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
bench() {  # variant, SCC_BENCH_ONLY, nets...
  local v=$1 only=$2; shift 2
  local dir=()
  [[ $v == built-in ]] || dir=(WARPCHECK_KERNEL_DIR=$PWD/$d/kv/$v)
  echo "== scc_bench $v ($only $(basename -a "$@" 2>/dev/null | tr '\n' ' '))"
  env "${dir[@]}" WARPCHECK_KERNEL_CACHE=/tmp/kc-$v RUST_LOG=warpcheck::scc::gpu=debug \
    SCC_BENCH_ONLY=$only SCC_BENCH_GPU_ONLY=1 timeout 100 /tmp/bin/scc_bench /tmp/graphs "$@" 2> /tmp/log.txt \
    | grep -E "DIFFERENT|same as|panicked|^graph"
  grep -E " Coloring:|panicked|error" /tmp/log.txt
  (echo "== log $v $only"; grep -v "generated edges" /tmp/log.txt) >> "$out/logs-a.txt"
}
ecl() { for r in $(seq ${2:-3}); do echo "== ECL-SCC $(basename $1) $(timeout 60 /tmp/ecl-scc $1 | grep -E "compute time")"; done; }
left() { (( $(date +%s) - start < $1 )); }
for rep in 1 2 3 4 5; do
  left 190 || break
  for v in built-in r0 r2; do bench $v none $d/mcc/Peterson-PT-3; done
  ecl /tmp/graphs/Peterson-PT-3.egr 2
  echo "elapsed $(( $(date +%s) - start )) s"
done
left 235 && { for v in built-in r0 r2; do bench $v none $d/mcc/Referendum-PT-0015; done; ecl /tmp/graphs/Referendum-PT-0015.egr 1; }
echo "elapsed $(( $(date +%s) - start )) s"
for g in rmat random; do
  left 270 || break
  for v in built-in r0 r2; do bench $v $g; done
  for f in /tmp/graphs/$g*.egr; do ecl $f 1; done
  echo "elapsed $(( $(date +%s) - start )) s"
done
xz -9 "$out/logs-a.txt"
echo "took $(( $(date +%s) - start )) s"
