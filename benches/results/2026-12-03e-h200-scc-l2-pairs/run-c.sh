#!/usr/bin/env bash
# Device call C (session 28), issue 13: the final build, whose colouring
# reads label pairs through L1 in a round's first pass and from L2 while
# blocks resweep (call B's tree cgr, built in). GPU tests first; then
# Peterson-PT-3 in turn with ECL-SCC, then R-MAT, the random graph and
# Referendum-PT-0015, as far as the session's last device time goes.
# Carried: .device/s28c, .device/shared.tar.xz.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/graphs /tmp/shared
exec > >(tee "$out/run-c.txt") 2>&1
d=.device/s28c
start=$(date +%s)
nvidia-smi -L; cat $d/BUILD
for f in warpcheck tests scc_bench; do xz -dc $d/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
tar -C /tmp/shared -xJf .device/shared.tar.xz
cp /tmp/bin/tests .device/tests
echo "== GPU tests $(date -u +%T)"
WARPCHECK_KERNEL_CACHE=/tmp/kc-built-in WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/warpcheck WARPCHECK_GRAPHS=/tmp/shared/graphs \
  timeout 100 bash scripts/gpu_test.sh scc::colouring scc::the_gpu scc::gpu scc::the_command_stores scc::explored \
  livelock::gpu mec::the_gpu > /tmp/tests.txt 2>&1
echo "tests rc=$?"
grep -E -A3 "^test |test result|panicked|assert|SKIPPED" /tmp/tests.txt | grep -v "^\s*$" | head -80
echo "GPU tests took $(( $(date +%s) - start )) s"
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    $d/ecl/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp $d/ecl/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
bench() {  # SCC_BENCH_ONLY, nets...
  local only=$1; shift
  echo "== scc_bench built-in ($only $(basename -a "$@" 2>/dev/null | tr '\n' ' '))"
  WARPCHECK_KERNEL_CACHE=/tmp/kc-built-in RUST_LOG=warpcheck::scc::gpu=debug \
    SCC_BENCH_ONLY=$only SCC_BENCH_GPU_ONLY=1 timeout 100 /tmp/bin/scc_bench /tmp/graphs "$@" 2> /tmp/log.txt \
    | grep -E "DIFFERENT|same as|panicked|^graph"
  grep -E " Coloring:|panicked|error" /tmp/log.txt
  (echo "== log built-in $only"; grep -v "generated edges" /tmp/log.txt) >> "$out/logs-c.txt"
}
ecl() { for r in $(seq ${2:-3}); do echo "== ECL-SCC $(basename $1) $(timeout 60 /tmp/ecl-scc $1 | grep -E "compute time")"; done; }
left() { (( $(date +%s) - start < $1 )); }
for rep in 1 2 3 4 5 6 7 8 9 10; do
  left 230 || break
  bench none $d/mcc/Peterson-PT-3
  ecl /tmp/graphs/Peterson-PT-3.egr 2
  echo "elapsed $(( $(date +%s) - start )) s"
done
for g in rmat random; do
  left 290 || break
  bench $g
  for f in /tmp/graphs/$g*.egr; do ecl $f 2; done
  echo "elapsed $(( $(date +%s) - start )) s"
done
left 320 && { bench none $d/mcc/Referendum-PT-0015; ecl /tmp/graphs/Referendum-PT-0015.egr 2; }
xz -9 "$out/logs-c.txt"
echo "took $(( $(date +%s) - start )) s"
