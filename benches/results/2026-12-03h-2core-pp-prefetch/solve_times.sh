#!/usr/bin/env bash
# Solve times (parsing excluded: `solve_seconds` of --format json) of one
# solver by several warpcheck builds on one game, the builds interleaved
# run by run; prints each build's median and least in milliseconds.
# Usage: solve_times.sh GAME SOLVER RUNS BINARY...
set -eu
game=$1 solver=$2 runs=$3
shift 3
for _ in $(seq "$runs"); do
  for binary in "$@"; do
    printf '%s ' "$binary"
    "$binary" parity "$game" --solver "$solver" --format json \
      | python3 -c "import json, sys; print(json.load(sys.stdin)['solve_seconds'])"
  done
done | python3 -c "
import collections, statistics, sys
times = collections.defaultdict(list)
for line in sys.stdin:
    binary, seconds = line.split()
    times[binary].append(float(seconds) * 1000)
for binary, ms in times.items():
    print(f'{binary}: median {statistics.median(ms):.2f} ms, least {min(ms):.2f} ms, {len(ms)} runs')
"
