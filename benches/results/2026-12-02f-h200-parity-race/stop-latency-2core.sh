#!/usr/bin/env bash
# How soon `--solver pp` on the CPU ends once stopped: `--timeout 0.01`
# (the stop signal is set 10 ms into the solve) with the build before
# this session (OLD, 7733c5a7) and after (NEW), interleaved, 3 runs each,
# the command's wall-clock time less its load_seconds (printed by a run
# without a timeout just before: the report of a stopped run has none).
# The 2-core development machine; games as in transpose-2core.sh.
set -u
old=$1 new=$2 games=${GAMES:-/work/pg}
for run in 1 2 3; do
  for g in $games/rngame-1M-100-1-3.pg $games/stgame-1M-2-6-2-6.pg; do
    for b in old new; do
      bin=${!b}
      load=$($bin --quiet --format json parity $g --engine cpu --solver pp | grep -oE '"load_seconds": [0-9.]+' | cut -d' ' -f2)
      start=$(date +%s.%N)
      $bin --quiet parity $g --engine cpu --solver pp --timeout 0.01 > /dev/null 2>&1
      rc=$?
      end=$(date +%s.%N)
      echo "$(basename $g) $b run $run: exit $rc, wall $(echo "$end - $start" | bc) s, load of the run before $load s"
    done
  done
done
