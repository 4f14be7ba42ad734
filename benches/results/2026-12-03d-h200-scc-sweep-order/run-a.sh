#!/usr/bin/env bash
# Device call A (session 27). First the GPU tests of the session's start
# (779b083b, parity's final code of session 26, plus the chunked sweep loop
# of signatures_propagate, forward as before): parity, SCC, livelock, MEC.
# Then issue 13: the order in which colouring's blocks sweep their edges,
# as kernel trees of the same binary (SWEEP_REVERSED in kernels/scc/scc.cu):
# built-in (always forward, in list order), alt (forward and backward
# alternately, sweep after sweep), altp (alternately pass after pass), rev
# (always backward), on Peterson-PT-3 in turn with ECL-SCC, then on the
# other graphs of scc_bench.
# Carried: .device/s27, .device/shared.tar.xz.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/graphs /tmp/shared
exec > >(tee "$out/run-a.txt") 2>&1
d=.device/s27
start=$(date +%s)
nvidia-smi -L; cat $d/BUILD
for f in warpcheck tests scc_bench; do xz -dc $d/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
tar -C /tmp/shared -xJf .device/shared.tar.xz
tar -C /tmp/shared -xJf $d/parity.tar.xz
cp /tmp/bin/tests .device/tests
echo "== GPU tests $(date -u +%T)"
WARPCHECK_KERNEL_CACHE=/tmp/kc-built-in WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/warpcheck WARPCHECK_GRAPHS=/tmp/shared/graphs \
  timeout 230 bash scripts/gpu_test.sh scc::colouring scc::the_gpu scc::gpu scc::the_command_stores scc::explored \
  livelock::gpu mec::the_gpu parity_gpu:: > /tmp/tests.txt 2>&1
echo "tests rc=$?"
grep -E -A3 "^test |test result|panicked|assert|SKIPPED" /tmp/tests.txt | grep -v "^\s*$" | head -120
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
ecl() { for r in 1 2 3; do echo "== ECL-SCC $(basename $1) $(timeout 60 /tmp/ecl-scc $1 | grep -E "compute time")"; done; }
left() { (( $(date +%s) - start < $1 )); }
for rep in 1 2 3; do
  left 470 || break
  for v in built-in alt altp rev; do bench $v none $d/mcc/Peterson-PT-3; done
  ecl /tmp/graphs/Peterson-PT-3.egr
  echo "elapsed $(( $(date +%s) - start )) s"
done
left 480 && for v in built-in alt altp rev; do bench $v none $d/mcc/Referendum-PT-0015; done
echo "elapsed $(( $(date +%s) - start )) s"
for g in random rmat grid; do
  left 520 || break
  for v in built-in alt altp rev; do bench $v $g; done
  echo "elapsed $(( $(date +%s) - start )) s"
done
xz -9 "$out/logs-a.txt"
echo "took $(( $(date +%s) - start )) s"
