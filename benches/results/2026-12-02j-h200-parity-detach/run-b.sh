#!/usr/bin/env bash
# Device call B (session 23): the GPU tests on the final binaries (the
# SCC and MEC tests left unrun on session 22's last host changes, and the
# parity tests through the races that now return with their winner), then
# the race against the build before (97585492) again on four games, as far
# as the call's time goes (three runs each, alternately).
# Carried: .device/s23 (as call A, plus shared.tar.xz: ../shared/graphs
# and ../shared/prob).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/games /tmp/shared
exec > >(tee "$out/run-b.txt") 2>&1
d=.device/s23
start=$(date +%s)
nvidia-smi -L; date -u
for f in warpcheck warpcheck-old tests; do xz -dc $d/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
tar -C /tmp/shared -xJf $d/shared.tar.xz
tar -C /tmp/shared -xJf $d/parity.tar.xz
mkdir -p .device && cp /tmp/bin/tests .device/tests
env_tests=(WARPCHECK_KERNEL_CACHE=/tmp/kc WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/warpcheck WARPCHECK_GRAPHS=/tmp/shared/graphs)
echo "== GPU tests: SCC, livelock, MEC $(date -u +%T)"
env "${env_tests[@]}" timeout 170 bash scripts/gpu_test.sh scc::colouring scc::the_gpu scc::gpu scc::the_command_stores \
  scc::explored livelock::gpu mec::the_gpu 2>&1 | grep -E -A3 "^test |test result|panicked|assert|SKIPPED" | head -80
echo "== GPU tests: parity $(date -u +%T)"
env "${env_tests[@]}" timeout 330 bash scripts/gpu_test.sh parity_gpu:: --nocapture 2>&1 \
  | grep -E -A3 "^test |test result|panicked|assert|SKIPPED|a cycle of|stopped|race" | grep -v "^\s*$" | head -120
echo "tests took $(( $(date +%s) - start )) s"
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kernel-cache
xz -dc $d/games/rngame-1M-100-1-3.pg.xz > /tmp/games/rngame-1M-100-1-3.pg
$d/gen/stgame 1000000 2 6 2 6 > /tmp/games/stgame-1M-2-6-2-6.pg
$d/gen/counter_m 333333 > /tmp/games/counter_m-333333.pg
$d/gen/counter_qpt 500000 > /tmp/games/counter_qpt-500000.pg
field() { grep -E "\"($1)\"" | tr -d '\n' | tr -s ' '; }
for g in stgame-1M-2-6-2-6 rngame-1M-100-1-3 counter_m-333333 counter_qpt-500000; do
  for run in 1 2 3; do
    for engine in auto gpu; do
      for b in old new; do
        (( $(date +%s) - start > 540 )) && { echo "out of time"; exit 0; }
        bin=/tmp/bin/warpcheck; [[ $b == old ]] && bin=/tmp/bin/warpcheck-old
        r=$(timeout 30 $bin --quiet --format json parity /tmp/games/$g.pg --engine $engine --timeout 20)
        echo "$g $b $engine run $run: rc=$? $(echo "$r" | field 'solver|solve_seconds|race_winner|won_by_even')"
      done
    done
  done
done
date -u
