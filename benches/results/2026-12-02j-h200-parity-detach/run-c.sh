#!/usr/bin/env bash
# Device call C (session 23): rngame 1000000 1000000 2 5 noself (made on
# the 2-core machine with Oink's generator, carried xz'd), the game of
# 10^6 vertices where Oink's solvers gave no result within 15 s of
# wall-clock time in session 18 (its parsing alone takes most of a
# minute): warpcheck's final build (one verified run of each engine,
# then three timed runs of auto, gpu and cpu), and Oink 0a4a37f's npp,
# pp, tl and zlk (16 workers) given 150 s each, for their solving time.
# First, a variant (`zl`): `--solver auto` from 4 threads races
# Zielonka's algorithm too (pp, tangle and zielonka at once), against
# the final build (`new`), `auto` and `cpu` alternately, three runs each,
# on the games where the CPU's time decides (counter_qpt, pgrand) and one
# where the GPU wins.
# Carried: .device/s23.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/games
exec > >(tee "$out/run-c.txt") 2>&1
d=.device/s23
nvidia-smi -L; nproc; date -u
for f in warpcheck warpcheck-zl; do xz -dc $d/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
tar -C /tmp -xJf $d/parity.tar.xz
$d/gen/counter_qpt 500000 > /tmp/games/counter_qpt-500000.pg
$d/gen/counter_qpt 5000000 > /tmp/games/counter_qpt-5000000.pg
$d/gen/stgame 1000000 2 6 2 6 > /tmp/games/stgame-1M-2-6-2-6.pg
g=/tmp/games/rngame-1M-1M-2-5-noself.pg
xz -dc $d/games/rngame-1M-1M-2-5-noself.pg.xz > $g
ls -la $g
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kernel-cache
field() { grep -E "\"($1)\"" | tr -d '\n' | tr -s ' '; }
for game in /tmp/games/counter_qpt-500000.pg /tmp/parity/pgrand-200k-s11.pg.gz /tmp/games/counter_qpt-5000000.pg \
            /tmp/games/stgame-1M-2-6-2-6.pg; do
  gname=$(basename $game .gz); gname=${gname%.pg}
  r=$(timeout 60 /tmp/bin/warpcheck-zl --quiet --format json parity $game --engine cpu --verify)
  echo "$gname zl cpu verified: rc=$? $(echo "$r" | field 'solver|engine|solve_seconds|won_by_even|verified')"
  for run in 1 2 3; do
    for engine in auto cpu; do
      for b in new zl; do
        bin=/tmp/bin/warpcheck; [[ $b == zl ]] && bin=/tmp/bin/warpcheck-zl
        r=$(timeout 60 $bin --quiet --format json parity $game --engine $engine --timeout 20)
        echo "$gname $b $engine run $run: rc=$? $(echo "$r" | field 'solver|solve_seconds|race_winner|won_by_even')"
      done
    done
  done
done
name=rngame-1M-1M-2-5-noself
for engine in auto gpu cpu; do
  r=$(timeout 120 /tmp/bin/warpcheck --quiet --format json parity $g --engine $engine --verify --timeout 60)
  echo "$name new $engine verified: rc=$? $(echo "$r" | field 'solver|engine|solve_seconds|load_seconds|won_by_even|verified|race_winner')"
done
for run in 1 2 3; do
  for engine in auto gpu cpu; do
    r=$(timeout 120 /tmp/bin/warpcheck --quiet --format json parity $g --engine $engine --timeout 60)
    echo "$name new $engine run $run: rc=$? $(echo "$r" | field 'solver|solve_seconds|race_winner|won_by_even')"
  done
done
for s in npp pp tl zlk:-w:16; do
  name_s=${s%%:*} extra=(); [[ $name_s == $s ]] || IFS=: read -r -a extra <<<"${s#*:}"
  start=$(date +%s)
  echo "$name oink $s: $(timeout 150 $d/oink --$name_s "${extra[@]}" -z 140 $g 2>&1 | grep -E 'parsing took|total solving time|preprocessing took|won by|solved' | tr -s ' ' | tr '\n' '|') wall $(( $(date +%s) - start )) s"
done
date -u
