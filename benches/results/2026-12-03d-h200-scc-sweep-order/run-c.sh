#!/usr/bin/env bash
# Device call C (session 27), issue 13: the final build (779b083b plus
# __launch_bounds__ on signatures_propagate, threads from the occupancy
# query, sweeps in list order as before). GPU tests with the built-in
# kernels and with the tree cg; then Peterson-PT-3 in turn with ECL-SCC,
# built-in against two trees whose colouring reads labels past L1
# (__ldcg): cg (both the pairs and the single labels) and cgs (the pairs
# only); then the random graph and Referendum-PT-0015.
# Carried: .device/s27, .device/shared.tar.xz.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/graphs /tmp/shared
exec > >(tee "$out/run-c.txt") 2>&1
d=.device/s27
start=$(date +%s)
nvidia-smi -L; cat $d/BUILD
for f in warpcheck tests scc_bench; do xz -dc $d/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
tar -C /tmp/shared -xJf .device/shared.tar.xz
cp /tmp/bin/tests .device/tests
tests() {  # variant
  local dir=()
  [[ $1 == built-in ]] || dir=(WARPCHECK_KERNEL_DIR=$PWD/$d/kv/$1)
  echo "== GPU tests, $1 kernels $(date -u +%T)"
  env "${dir[@]}" WARPCHECK_KERNEL_CACHE=/tmp/kc-$1 WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/warpcheck WARPCHECK_GRAPHS=/tmp/shared/graphs \
    timeout 120 bash scripts/gpu_test.sh scc::colouring scc::the_gpu scc::gpu scc::the_command_stores scc::explored \
    livelock::gpu mec::the_gpu > /tmp/tests.txt 2>&1
  echo "tests rc=$?"
  grep -E -A3 "^test |test result|panicked|assert|SKIPPED" /tmp/tests.txt | grep -v "^\s*$" | head -60
}
tests built-in
tests cg
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
  (echo "== log $v $only"; grep -v "generated edges" /tmp/log.txt) >> "$out/logs-c.txt"
}
ecl() { for r in 1 2 3; do echo "== ECL-SCC $(basename $1) $(timeout 60 /tmp/ecl-scc $1 | grep -E "compute time")"; done; }
left() { (( $(date +%s) - start < $1 )); }
for rep in 1 2 3; do
  left 330 || break
  for v in built-in cg cgs; do bench $v none $d/mcc/Peterson-PT-3; done
  ecl /tmp/graphs/Peterson-PT-3.egr
  echo "elapsed $(( $(date +%s) - start )) s"
done
left 380 && { for v in built-in cg cgs; do bench $v random; done; ecl /tmp/graphs/random*.egr; }
echo "elapsed $(( $(date +%s) - start )) s"
left 400 && { for v in built-in cg cgs; do bench $v none $d/mcc/Referendum-PT-0015; done; ecl /tmp/graphs/Referendum-PT-0015.egr; }
xz -9 "$out/logs-c.txt"
echo "took $(( $(date +%s) - start )) s"
