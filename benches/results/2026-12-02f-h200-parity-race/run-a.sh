#!/usr/bin/env bash
# Device call A (session 19): two parity GPU tests, then every game of
# 10^6 vertices or more beside Oink's solvers, and pgrand-200k-s11 (10^5
# to 10^6). warpcheck with --engine auto (a race of the GPU and the CPU
# on games of 10^6 vertices or more), gpu and cpu: a first run verified
# with the debug log, then two timed runs each. Oink 0a4a37f (Lace
# v1.4.1): one run per solver, 16 workers where parallel.
# Games: rngame 1000000 100 1 3 (made on the 2-core machine: Oink's
# rngame takes minutes), stgame
# 1000000 2 6 2 6 (made here, unseeded: another game than call B's of
# 2026-12-02d), counter_m 333333, counter_ortl 200000, counter_qpt 500000
# and 5000000 (made here, deterministic).
# Carried: .device/s19 (xz'd binaries, two games, oink and its Boost
# library, Oink's generators, ../shared/parity/pgrand-200k-s11.pg.gz).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/games
exec > >(tee "$out/run-a.txt") 2>&1
d=.device/s19
nvidia-smi -L; nproc; date -u
xz -dc $d/warpcheck.xz > /tmp/bin/warpcheck && chmod +x /tmp/bin/warpcheck
xz -dc $d/tests.xz > .device/tests && chmod +x .device/tests

for g in $d/games/*.xz; do xz -dc $g > /tmp/games/$(basename $g .xz); done
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kernel-cache
oink_times() { grep -E 'parsing took|total solving time|trivial cycles|preprocessing took' | tr -s ' ' | tr '\n' '|'; }
$d/gen/stgame 1000000 2 6 2 6 > /tmp/games/stgame-1M-2-6-2-6.pg &
stgame=$!
$d/gen/counter_m 333333 > /tmp/games/counter_m-333333.pg
$d/gen/counter_ortl 200000 > /tmp/games/counter_ortl-200000.pg
$d/gen/counter_qpt 500000 > /tmp/games/counter_qpt-500000.pg
$d/gen/counter_qpt 5000000 > /tmp/games/counter_qpt-5000000.pg
ls -la /tmp/games
echo "== the new race test $(date -u +%T)"
WARPCHECK_BIN=/tmp/bin/warpcheck timeout 120 bash scripts/gpu_test.sh \
  parity_gpu::a_race_ends_soon parity_gpu::a_stop_ends --nocapture 2>&1 | grep -vE "^\s*$" | tail -20
field() { grep -E "\"($1)\"" | tr -d '\n' | tr -s ' '; }
bench() {
  local g=$1 name; name=$(basename $g .gz); name=${name%.pg}
  echo "== $name $(date -u +%T)"
  local gpu_ok=1
  for engine in auto gpu cpu; do
    RUST_LOG=warpcheck::parity=debug,warpcheck::scc=info timeout 60 /tmp/bin/warpcheck --quiet --format json parity $g --engine $engine --verify --timeout 20 > /tmp/r.json 2> /tmp/r.log
    rc=$?
    echo "$name warpcheck $engine verified: rc=$rc $(field 'solver|engine|solve_seconds|load_seconds|elapsed_seconds|won_by_even|verified|race_winner' < /tmp/r.json)"
    grep -E "GPU|solved|controlled|predecessors" /tmp/r.log | sed -E 's/\x1b\[[0-9;]*m//g' | cut -c1-230 | head -14
    [[ $engine == gpu && $rc != 0 ]] && gpu_ok=0
  done
  for run in 1 2; do
    for engine in auto gpu cpu; do
      [[ $engine == gpu && $gpu_ok == 0 ]] && continue
      r=$(timeout 60 /tmp/bin/warpcheck --quiet --format json parity $g --engine $engine --timeout 20)
      echo "$name warpcheck $engine run $run: rc=$? $(echo "$r" | field 'solver|solve_seconds|elapsed_seconds|race_winner')"
    done
  done
  local solvers=(npp pp zlk:-w:16 fpi:-w:16 psi:-w:16 tl)
  [[ $name == counter_m* || $name == counter_ortl* ]] && solvers=(tl pp zlk:-w:16)
  for s in "${solvers[@]}"; do
    local name_s=${s%%:*} extra=(); [[ $name_s == $s ]] || IFS=: read -r -a extra <<<"${s#*:}"
    echo "$name oink $s: $(timeout 60 $d/oink --$name_s "${extra[@]}" -z 15 $g 2>&1 | oink_times)"
  done
}
for g in /tmp/games/rngame-1M-100-1-3.pg /tmp/games/counter_m-333333.pg /tmp/games/counter_ortl-200000.pg \
         /tmp/games/counter_qpt-500000.pg $d/pgrand-200k-s11.pg.gz; do bench $g; done
wait $stgame; bench /tmp/games/stgame-1M-2-6-2-6.pg
bench /tmp/games/counter_qpt-5000000.pg
date -u
