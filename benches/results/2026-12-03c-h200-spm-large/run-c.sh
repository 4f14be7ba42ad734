#!/usr/bin/env bash
# Device call C (session 26), issue 15: `--engine auto` with Zielonka's
# algorithm joining priority promotion and tangle learning from 4 threads
# (parity::AUTO_RACE_AT_ONCE; `new`), against the build before (70f750a5,
# `old`: priority promotion and tangle learning), and Oink's fastest
# solver of session 25 on each game, in rounds: old, new, Oink; 7 rounds
# after one verified run of `new`. Solve times exclude parsing.
# Carried: .device/s26d (Oink 0a4a37f + Lace v1.4.1 and its Boost
# library, Oink's generators, rngame 1000000 100 1 3, pgrand-200k-s11 of
# ../shared/parity, the old and the new build).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/shared /tmp/g
exec > >(tee "$out/run-c.txt") 2>&1
o=.device/s26d; n=.device/s26d
start=$(date +%s)
nvidia-smi -L; nproc; date -u
xz -dc $o/old.xz > /tmp/bin/old; xz -dc $o/new.xz > /tmp/bin/new; chmod +x /tmp/bin/*
# (`wait` names its jobs: a bare one would also wait for the tee above.)
jobs=()
xz -dc $n/rngame-1M-100-1-3.pg.xz > /tmp/g/rngame-1M-100-1-3.pg & jobs+=($!)
$n/gen/counter_m 333333 > /tmp/g/counter_m-333333.pg & jobs+=($!)
$n/gen/counter_ortl 200000 > /tmp/g/counter_ortl-200000.pg & jobs+=($!)
$n/gen/counter_qpt 500000 > /tmp/g/counter_qpt-500000.pg & jobs+=($!)
$n/gen/counter_qpt 5000000 > /tmp/g/counter_qpt-5000000.pg & jobs+=($!)
zcat $o/pgrand-200k-s11.pg.gz > /tmp/g/pgrand-200k-s11.pg & jobs+=($!)
wait "${jobs[@]}"
echo "games made after $(( $(date +%s) - start )) s"
export LD_LIBRARY_PATH=$o/lib WARPCHECK_KERNEL_CACHE=/tmp/kc
/tmp/bin/new --quiet parity /tmp/g/counter_qpt-500000.pg --engine gpu > /dev/null   # fills the kernel cache
field() { grep -E "\"($1)\"" | tr -d '\n' | tr -s ' '; }
bench() {  # game, Oink's solver
  local name=$1 s=$2 g=/tmp/g/$1.pg
  echo "== $name $(date -u +%T)"
  r=$(timeout 60 /tmp/bin/new --quiet --format json parity $g --verify)
  echo "$name new verified: rc=$? $(echo "$r" | field 'won_by_even|engine|verified|solve_seconds')"
  for run in 1 2 3 4 5 6 7; do
    for b in old new; do
      r=$(timeout 60 /tmp/bin/$b --quiet --format json parity $g)
      echo "$name $b run $run: rc=$? $(echo "$r" | field 'won_by_even|solver|race_winner|solve_seconds')"
    done
    echo "$name oink $s run $run: $(timeout 60 $o/oink --$s -z 50 $g 2>&1 | grep -E 'total solving time' | tr -s ' ')"
  done
}
bench counter_qpt-500000 "zlk -w 16"
bench pgrand-200k-s11 "zlk -w 16"
bench counter_m-333333 tl
bench counter_ortl-200000 tl
bench rngame-1M-100-1-3 npp
(( $(date +%s) - start < 380 )) && bench counter_qpt-5000000 npp
echo "took $(( $(date +%s) - start )) s"; date -u
