#!/usr/bin/env bash
# Device call A (session 23), issue 15: races that return with their
# winner (losers left to stop on their own) and stop signals that reach
# nested races at once, against the build before (97585492), side by
# side on the same games in one call. warpcheck --engine auto (a race of
# GPU and CPU on games of 10^6 vertices or more), gpu and cpu (the race
# of pp and tangle on 16 threads): one verified run of the new build,
# then three timed runs of each build, alternately. Then the CPU solvers
# alone (new build) and Oink 0a4a37f (Lace v1.4.1), 16 workers where
# parallel, one run per solver. Solve times exclude parsing in both.
# Games: rngame 1000000 100 1 3 (made on the 2-core machine: Oink's
# rngame takes minutes; carried), stgame 1000000 2 6 2 6 (made here,
# unseeded), counter_m 333333, counter_ortl 200000, counter_qpt 500000
# and 5000000 (made here, deterministic), pgrand-200k-s11 of
# ../shared/parity.
# Carried: .device/s23 (stripped xz'd binaries, Oink built with
# OINK_NATIVE=OFF, its Boost library, Oink's generators, the rngame,
# ../shared/parity as parity.tar.xz).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/games /tmp/shared
exec > >(tee "$out/run-a.txt") 2>&1
d=.device/s23
nvidia-smi -L; nproc; date -u
for f in warpcheck warpcheck-old; do xz -dc $d/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
tar -C /tmp/shared -xJf $d/parity.tar.xz
xz -dc $d/games/rngame-1M-100-1-3.pg.xz > /tmp/games/rngame-1M-100-1-3.pg
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kernel-cache
$d/gen/stgame 1000000 2 6 2 6 > /tmp/games/stgame-1M-2-6-2-6.pg
$d/gen/counter_m 333333 > /tmp/games/counter_m-333333.pg
$d/gen/counter_ortl 200000 > /tmp/games/counter_ortl-200000.pg
$d/gen/counter_qpt 500000 > /tmp/games/counter_qpt-500000.pg
$d/gen/counter_qpt 5000000 > /tmp/games/counter_qpt-5000000.pg
ls -la /tmp/games
field() { grep -E "\"($1)\"" | tr -d '\n' | tr -s ' '; }
oink_times() { grep -E 'parsing took|total solving time|preprocessing took' | tr -s ' ' | tr '\n' '|'; }
timed() {  # label, command...: the JSON fields and the command's wall-clock time
  local label=$1; shift
  local s e r rc
  s=$(date +%s.%N); r=$("$@"); rc=$?; e=$(date +%s.%N)
  echo "$label: rc=$rc $(echo "$r" | field 'solver|solve_seconds|load_seconds|race_winner|won_by_even') \"wall\": $(echo "$e - $s" | bc)"
}
bench() {
  local g=$1 name; name=$(basename $g .gz); name=${name%.pg}
  echo "== $name $(date -u +%T)"
  for engine in auto gpu cpu; do
    RUST_LOG=warpcheck::parity=debug timeout 60 /tmp/bin/warpcheck --quiet --format json parity $g --engine $engine --verify --timeout 20 > /tmp/r.json 2> /tmp/r.log
    echo "$name new $engine verified: rc=$? $(field 'solver|engine|solve_seconds|won_by_even|verified|race_winner' < /tmp/r.json)"
  done
  for run in 1 2 3; do
    for engine in auto cpu; do
      for b in old new; do
        local bin=/tmp/bin/warpcheck; [[ $b == old ]] && bin=/tmp/bin/warpcheck-old
        timed "$name $b $engine run $run" timeout 60 $bin --quiet --format json parity $g --engine $engine --timeout 20
      done
    done
  done
  for b in old new; do
    local bin=/tmp/bin/warpcheck; [[ $b == old ]] && bin=/tmp/bin/warpcheck-old
    timed "$name $b gpu" timeout 60 $bin --quiet --format json parity $g --engine gpu --timeout 20
  done
  for s in pp tangle zielonka; do
    timed "$name new cpu --solver $s" timeout 60 /tmp/bin/warpcheck --quiet --format json parity $g --engine cpu --solver $s --timeout 20
  done
  local solvers=(zlk:-w:16 pp tl npp)
  [[ $name == counter_m* || $name == counter_ortl* ]] && solvers=(tl pp zlk:-w:16)
  for s in "${solvers[@]}"; do
    local name_s=${s%%:*} extra=(); [[ $name_s == $s ]] || IFS=: read -r -a extra <<<"${s#*:}"
    echo "$name oink $s: $(timeout 60 $d/oink --$name_s "${extra[@]}" -z 15 $g 2>&1 | oink_times)"
  done
}
for g in /tmp/games/stgame-1M-2-6-2-6.pg /tmp/games/rngame-1M-100-1-3.pg /tmp/games/counter_m-333333.pg \
         /tmp/games/counter_ortl-200000.pg /tmp/games/counter_qpt-500000.pg /tmp/shared/parity/pgrand-200k-s11.pg.gz \
         /tmp/games/counter_qpt-5000000.pg; do
  bench $g
done
date -u
