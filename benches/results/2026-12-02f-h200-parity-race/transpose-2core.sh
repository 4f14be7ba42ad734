#!/usr/bin/env bash
# `--engine cpu --solver pp` with the build before this session (OLD,
# 7733c5a7: a sequential transpose) and after (NEW: the transpose on
# rayon's threads, and pp's attractors looking at the stop signal),
# interleaved, 3 runs each, on the 2-core development machine. Games as
# in run-a.sh (GAMES folder) and ../shared/parity/pgrand-200k-s11.pg.gz.
set -u
old=$1 new=$2 games=${GAMES:-/work/pg}
for run in 1 2 3; do
  for g in $games/rngame-1M-100-1-3.pg $games/stgame-1M-2-6-2-6.pg $games/counter_qpt-500000.pg \
           $games/counter_qpt-5000000.pg ${PGRAND:-../shared/parity/pgrand-200k-s11.pg.gz}; do
    for b in old new; do
      bin=${!b}
      r=$($bin --quiet --format json parity $g --engine cpu --solver pp)
      echo "$(basename $g) $b run $run: $(echo "$r" | grep -E '"(solve_seconds|won_by_even)"' | tr -d ' \n')"
    done
  done
done
