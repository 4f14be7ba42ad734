#!/usr/bin/env bash
# Device call A (session 24), issue 15: the parity command keeping the
# memory that loading frees for the solvers (src/cli/allocator.rs), side
# by side with the build before (486bb788, `old`) and with a build that
# keeps it without one arena for all threads (`noarena`: M_MMAP_MAX and
# M_TRIM_THRESHOLD only). warpcheck --engine auto: one verified run of
# `new`, then five timed runs of each build, alternately (three on the games
# where the two are far apart); three runs of
# `new` with --threads 3 (the head start of tangle learning, as on fewer
# than four threads). Then Oink 0a4a37f (Lace v1.4.1): its fastest
# solvers on each game (session 23's figures), five runs each on the
# games where the two are close, two elsewhere; 16 workers where
# parallel. Solve times exclude parsing in both.
# Games as in session 23: Oink's generators here (deterministic but for
# stgame), rngame 1000000 100 1 3 made on the 2-core machine (carried),
# pgrand-200k-s11 of ../shared/parity.
# Carried: .device/s24 (stripped xz'd binaries, Oink built with
# OINK_NATIVE=OFF, its Boost library, Oink's generators, the rngame,
# ../shared/parity as parity.tar.xz).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/games /tmp/shared
exec > >(tee "$out/run-a.txt") 2>&1
d=.device/s24
nvidia-smi -L; nproc; date -u
for f in old new noarena; do xz -dc $d/warpcheck-$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
tar -C /tmp/shared -xJf $d/parity.tar.xz
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kernel-cache
# (`wait` names its jobs: a bare one would also wait for the tee above.)
jobs=()
xz -dc $d/rngame-1M-100-1-3.pg.xz > /tmp/games/rngame-1M-100-1-3.pg & jobs+=($!)
$d/gen/stgame 1000000 2 6 2 6 > /tmp/games/stgame-1M-2-6-2-6.pg & jobs+=($!)
$d/gen/counter_m 333333 > /tmp/games/counter_m-333333.pg & jobs+=($!)
$d/gen/counter_ortl 200000 > /tmp/games/counter_ortl-200000.pg & jobs+=($!)
$d/gen/counter_qpt 500000 > /tmp/games/counter_qpt-500000.pg & jobs+=($!)
$d/gen/counter_qpt 5000000 > /tmp/games/counter_qpt-5000000.pg & jobs+=($!)
wait "${jobs[@]}"
ls -la /tmp/games; date -u
field() { grep -E "\"($1)\"" | tr -d '\n' | tr -s ' '; }
oink_times() { grep -E 'parsing took|total solving time|preprocessing took' | tr -s ' ' | tr '\n' '|'; }
bench() {  # game, rounds of the builds, runs of Oink, Oink's solvers...
  local g=$1 rounds=$2 oink_runs=$3; shift 3
  local name; name=$(basename $g .gz); name=${name%.pg}
  echo "== $name $(date -u +%T)"
  r=$(timeout 60 /tmp/bin/new --quiet --format json parity $g --verify --timeout 30)
  echo "$name new auto verified: rc=$? $(echo "$r" | field 'solver|engine|solve_seconds|load_seconds|won_by_even|verified|race_winner')"
  for run in $(seq $rounds); do
    for b in old new noarena; do
      r=$(timeout 60 /tmp/bin/$b --quiet --format json parity $g --timeout 30)
      echo "$name $b auto run $run: rc=$? $(echo "$r" | field 'solver|load_seconds|solve_seconds|race_winner|won_by_even')"
    done
  done
  for run in 1 2 3; do
    r=$(timeout 60 /tmp/bin/new --quiet --format json parity $g --threads 3 --timeout 30)
    echo "$name new auto-threads-3 run $run: rc=$? $(echo "$r" | field 'solver|load_seconds|solve_seconds|race_winner|won_by_even')"
  done
  for s in "$@"; do
    local name_s=${s%%:*} extra=(); [[ $name_s == $s ]] || IFS=: read -r -a extra <<<"${s#*:}"
    for run in $(seq $oink_runs); do
      echo "$name oink $s run $run: $(timeout 60 $d/oink --$name_s "${extra[@]}" -z 30 $g 2>&1 | oink_times)"
    done
  done
}
bench /tmp/games/counter_qpt-500000.pg 5 5 tl npp zlk:-w:16
bench /tmp/shared/parity/pgrand-200k-s11.pg.gz 5 5 npp zlk:-w:16 tl
bench /tmp/games/counter_qpt-5000000.pg 3 3 npp tl
bench /tmp/games/stgame-1M-2-6-2-6.pg 3 2 npp
bench /tmp/games/rngame-1M-100-1-3.pg 3 2 npp
bench /tmp/games/counter_m-333333.pg 3 1 tl
bench /tmp/games/counter_ortl-200000.pg 3 1 tl
date -u
