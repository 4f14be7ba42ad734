#!/bin/sh
# The commands behind README.md's tables, run from the worktree's root after
# `cargo build --release`; games are generated into $GAMES by Oink's generators.
set -e
W=${W:-target/release/warpcheck}
OINK=${OINK:-/work/oink-build-npp/oink}
GEN=${GEN:-/tmp/oink-tools}
GAMES=${GAMES:-/tmp/tl}
B=benches/results/2026-11-25-2core-tangle
uptime
python3 $B/bench.py $W $OINK $GEN $GAMES 3 tangle \
  counter_ortl-500 counter_ortl-2000 counter_ortl-8000 counter_ortl-32000 counter_ortl-200000 \
  counter_m-2000 counter_m-8000 counter_m-32000 counter_m-333333 \
  counter_dp-500 counter_dp-2000
python3 $B/bench.py $W $OINK $GEN $GAMES 1 tangle counter_dp-8000
python3 $B/bench.py $W $OINK $GEN $GAMES 3 auto counter_ortl-200000 counter_m-333333
uptime
