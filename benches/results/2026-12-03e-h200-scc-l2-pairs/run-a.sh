#!/usr/bin/env bash
# Device call A (session 28), issue 13. Built-in: colouring reads label
# pairs from L2 (__ldcg in load_signature; the tree cgs of session 27's
# call C). Trees: plain (e90534ae's kernels: every load plain) and r0 (the
# built-in resweeping from a round's first pass). GPU tests of the build
# first; then Peterson-PT-3 in turn with ECL-SCC, then the other graphs.
# Carried: .device/s28, .device/shared.tar.xz.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/graphs /tmp/shared
exec > >(tee "$out/run-a.txt") 2>&1
d=.device/s28
start=$(date +%s)
nvidia-smi -L; cat $d/BUILD
for f in warpcheck tests scc_bench; do xz -dc $d/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
tar -C /tmp/shared -xJf .device/shared.tar.xz
cp /tmp/bin/tests .device/tests
echo "== GPU tests $(date -u +%T)"
WARPCHECK_KERNEL_CACHE=/tmp/kc-built-in WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/warpcheck WARPCHECK_GRAPHS=/tmp/shared/graphs \
  timeout 150 bash scripts/gpu_test.sh scc::colouring scc::the_gpu scc::gpu scc::the_command_stores scc::explored \
  livelock::gpu mec::the_gpu > /tmp/tests.txt 2>&1
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
for rep in 1 2 3 4 5 6; do
  left 330 || break
  for v in built-in plain r0; do bench $v none $d/mcc/Peterson-PT-3; done
  ecl /tmp/graphs/Peterson-PT-3.egr
  echo "elapsed $(( $(date +%s) - start )) s"
done
for g in random rmat grid; do
  left 460 || break
  for v in built-in plain r0; do bench $v $g; done
  for f in /tmp/graphs/$g*.egr; do ecl $f 2; done
  echo "elapsed $(( $(date +%s) - start )) s"
done
left 500 && { for v in built-in plain r0; do bench $v none $d/mcc/Referendum-PT-0015; done; ecl /tmp/graphs/Referendum-PT-0015.egr 2; }
xz -9 "$out/logs-a.txt"
echo "took $(( $(date +%s) - start )) s"
