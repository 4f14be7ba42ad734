#!/usr/bin/env bash
# prepare_seconds of the knobs build (knobs.patch) with the parallel
# transpose from 2^20 edges (as built) and from 2^17 (KNOB_PAR_MIN),
# interleaved; medians and least in ms. Usage: prepare_times.sh KNOBS GAME RUNS
set -eu
knobs=$1 game=$2 runs=$3
for _ in $(seq "$runs"); do
  for min in 1048576 131072; do
    printf '%s ' "$min"
    KNOB_PAR_MIN=$min "$knobs" parity "$game" --format json \
      | python3 -c "import json, sys; print(json.load(sys.stdin)['prepare_seconds'])"
  done
done | python3 -c "
import collections, statistics, sys
times = collections.defaultdict(list)
for line in sys.stdin:
    bound, seconds = line.split()
    times[bound].append(float(seconds) * 1000)
for bound, ms in times.items():
    print(f'parallel from {bound} edges: median {statistics.median(ms):.2f} ms, least {min(ms):.2f} ms, {len(ms)} runs')
"
