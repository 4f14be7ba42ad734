#!/usr/bin/env bash
# Device call B (session 27), issue 13, after call A found that the
# chunked sweep loop took signatures_propagate from 31 to 40 registers, so
# that fewer blocks than launched were resident and passes that wait on
# other blocks' growth ran 3-5 times slower. Built-in now: sweeps
# alternating in direction, __launch_bounds__ (32 registers), threads from
# the occupancy query. Trees: old (779b083b's kernels: forward, 31
# registers) and fwd-lb (the built-in with every sweep forward). GPU tests
# of the build first, then Peterson-PT-3 in turn with ECL-SCC, then the
# other graphs.
# Carried: .device/s27, .device/shared.tar.xz.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/graphs /tmp/shared
exec > >(tee "$out/run-b.txt") 2>&1
d=.device/s27
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
  (echo "== log $v $only"; grep -v "generated edges" /tmp/log.txt) >> "$out/logs-b.txt"
}
ecl() { for r in 1 2 3; do echo "== ECL-SCC $(basename $1) $(timeout 60 /tmp/ecl-scc $1 | grep -E "compute time")"; done; }
left() { (( $(date +%s) - start < $1 )); }
for rep in 1 2 3; do
  left 420 || break
  for v in built-in old fwd-lb; do bench $v none $d/mcc/Peterson-PT-3; done
  ecl /tmp/graphs/Peterson-PT-3.egr
  echo "elapsed $(( $(date +%s) - start )) s"
done
for g in random rmat grid; do
  left 480 || break
  for v in built-in old fwd-lb; do bench $v $g; done
  for f in /tmp/graphs/$g*.egr; do ecl $f; done
  echo "elapsed $(( $(date +%s) - start )) s"
done
left 470 && { for v in built-in old fwd-lb; do bench $v none $d/mcc/Referendum-PT-0015; done; ecl /tmp/graphs/Referendum-PT-0015.egr; }
xz -9 "$out/logs-b.txt"
echo "took $(( $(date +%s) - start )) s"
