#!/usr/bin/env bash
# Device call W (session 49), issue 13: colouring with the labels its
# sample of the edges chooses (numbers on the explored state spaces and
# the random graph; src/scc/labels.rs) against the scrambled labels of
# every earlier call, in the same scc_bench process (`NAME Coloring:` and
# `NAME Coloring-OTHER:` on stderr), beside ECL-SCC 8e67732. First the
# GPU tests of SCC, livelock and MEC; then Peterson-PT-3, scc_bench and
# ECL-SCC taking turns; then Referendum-PT-0015, the random graph, R-MAT
# and the grid as far as LIMIT (seconds, default 560) allows.
# Prepared by prepare.sh; carry .device/s49:
#   D=.device/s49 bash benches/results/2026-12-05w-prepared/run-w.sh
# Session 50's second call: SKIP_TESTS=1 PETERSON_RUNS=5 GRAPHS=random (no
# GPU tests, five Peterson-PT-3 processes, the random graph once).
# Table: python3 benches/results/2026-12-05w-prepared/table.py run-w.txt
cd "$(dirname "$0")/../../.."
log=run-w D=${D:-.device/s49}
source benches/results/2026-12-04g-h200-verify-and-jump/common.sh
limit=${LIMIT:-560}
mkdir -p /tmp/graphs
cp /tmp/bin/tests .device/tests
if [[ -z ${SKIP_TESTS:-} ]]; then
  echo "== GPU tests $(date -u +%T)"
  WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/warpcheck WARPCHECK_GRAPHS=/tmp/shared/graphs \
    timeout 150 bash scripts/gpu_test.sh scc::colouring scc::the_gpu scc::gpu scc::the_command_stores \
    scc::explored livelock::gpu mec::the_gpu > /tmp/tests.txt 2>&1
  show_tests $? scc
  echo "GPU tests took $(( $(date +%s) - start )) s"
fi
bench() {  # SCC_BENCH_ONLY, nets...
  local only=$1; shift
  echo "== scc_bench ($only $(basename -a "$@" 2>/dev/null | tr '\n' ' '))"
  RUST_LOG=warpcheck::scc::gpu=debug SCC_BENCH_ONLY=$only SCC_BENCH_GPU_ONLY=1 \
    timeout 100 /tmp/bin/scc_bench /tmp/graphs "$@" 2> /tmp/log.txt | grep -E "DIFFERENT|same as|panicked|^graph"
  grep -E " Coloring(-[A-Za-z]+)?:|panicked|error" /tmp/log.txt
  (echo "== log $only"; grep -v "generated edges" /tmp/log.txt) >> "$out/logs-w.txt"
}
left() { (( $(date +%s) - start < limit - $1 )); }
for rep in $(seq ${PETERSON_RUNS:-6}); do
  left 200 || break
  bench none $d/mcc/Peterson-PT-3
  ecl_scc /tmp/graphs/Peterson-PT-3.egr 3
  echo "elapsed $(( $(date +%s) - start )) s"
done
for rep in 1 2; do
  left 130 || break
  bench none $d/mcc/Referendum-PT-0015
  ecl_scc /tmp/graphs/Referendum-PT-0015.egr 2
  echo "elapsed $(( $(date +%s) - start )) s"
done
for g in ${GRAPHS:-random random rmat grid}; do
  left 40 || break
  bench $g
  for f in /tmp/graphs/$g*.egr; do ecl_scc $f 1; done
  echo "elapsed $(( $(date +%s) - start )) s"
done
xz -9 "$out/logs-w.txt"
echo "took $(( $(date +%s) - start )) s"
