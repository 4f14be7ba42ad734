#!/usr/bin/env bash
# Device call A (session 22), issue 13: contraction of mutual edges before
# colouring. The GPU tests of the built-in kernels (contraction when a
# sample of the edges shows one in 16 mutual), then scc_bench with the
# built-in kernels and the trees `nc` (mutual_sample counts nothing: never
# contracts, as before this change) and `fc` (counts every sample: always
# contracts) alternately, beside ECL-SCC, as far as the device time goes.
# Carried: .device/s22, .device/shared.tar.xz.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/graphs /tmp/shared
exec > >(tee "$out/run-a.txt") 2>&1
d=.device/s22
nvidia-smi -L
for f in warpcheck tests scc_bench; do xz -dc $d/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
tar -C /tmp/shared -xJf .device/shared.tar.xz
mkdir -p .device && cp /tmp/bin/tests .device/tests
start=$(date +%s)
echo "== GPU tests (built-in kernels)"
WARPCHECK_KERNEL_CACHE=/tmp/kc-built-in WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/warpcheck WARPCHECK_GRAPHS=/tmp/shared/graphs \
  timeout 170 bash scripts/gpu_test.sh scc::colouring scc::the_gpu scc::gpu scc::the_command_stores scc::explored \
  livelock::gpu mec::the_gpu 2>&1 | grep -E "^test |test result|panicked|assert|SKIPPED|contracted" | head -60
echo "GPU tests took $(( $(date +%s) - start )) s"
echo "== ECL-SCC build"
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    $d/ecl/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp $d/ecl/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
bench() {  # variant (built-in, nc, fc), SCC_BENCH_ONLY, nets...
  local v=$1 only=$2; shift 2
  local dir=()
  [[ $v == built-in ]] || dir=(WARPCHECK_KERNEL_DIR=$PWD/$d/kv/$v)
  echo "== scc_bench $v ($only $(basename -a "$@" 2>/dev/null | tr '\n' ' '))"
  env "${dir[@]}" WARPCHECK_KERNEL_CACHE=/tmp/kc-$v RUST_LOG=warpcheck::scc::gpu=debug \
    SCC_BENCH_ONLY=$only SCC_BENCH_GPU_ONLY=1 timeout 150 /tmp/bin/scc_bench /tmp/graphs "$@" 2> /tmp/log.txt \
    | grep -E "Coloring|DIFFERENT|same as|panicked|^graph"
  grep -E "Coloring|in place|panicked|error|mutual" /tmp/log.txt | grep -v "DEBUG.*round" | head -8
  (echo "== log $v $only"; grep -v "generated edges" /tmp/log.txt) >> "$out/logs-a.txt"
}
ecl() {  # graphs...
  for g in "$@"; do for r in 1 2 3; do echo "== ECL-SCC $(basename $g) $(timeout 60 /tmp/ecl-scc $g | grep -E "compute time")"; done; done
}
for v in built-in nc built-in nc; do bench $v grid; done
ecl /tmp/graphs/grid*.egr
echo "elapsed $(( $(date +%s) - start )) s"
for v in built-in nc fc; do bench $v rmat; done
ecl /tmp/graphs/rmat*.egr
for v in built-in fc; do bench $v random; done
ecl /tmp/graphs/random*.egr
echo "elapsed $(( $(date +%s) - start )) s"
for v in built-in nc built-in; do bench $v none $d/mcc/Peterson-PT-3; done
ecl /tmp/graphs/Peterson-PT-3.egr
echo "elapsed $(( $(date +%s) - start )) s"
bench built-in none $d/mcc/Referendum-PT-0015; ecl /tmp/graphs/Referendum-PT-0015.egr
echo "elapsed $(( $(date +%s) - start )) s"
