#!/usr/bin/env bash
# `--solver auto` on the CPU with 2 threads (tangle learning joins priority
# promotion after its head start) and with 4 (both start at once,
# AT_ONCE_THREADS), and tangle learning alone, interleaved, 5 runs each,
# on Oink's counter_m 333333 and counter_ortl 200000 (made by Oink's
# generators, deterministic). The 2-core development machine.
set -u
bin=${1:-target/release/warpcheck}
games=${GAMES:-/work/pg}
for run in 1 2 3 4 5; do
  for g in counter_m-333333 counter_ortl-200000; do
    for args in "--threads 2" "--threads 4" "--solver tangle"; do
      r=$($bin --quiet --format json parity $games/$g.pg --engine cpu $args)
      echo "$g $args run $run: $(echo "$r" | grep -E '"(solver|solve_seconds)"' | tr -d ' \n')"
    done
  done
done
