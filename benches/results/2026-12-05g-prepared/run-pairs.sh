#!/usr/bin/env bash
# Prepared in session 44, NOT YET RUN: call L (issue 17), on `nvidia-h200`.
# Main's CLI (final.xz of prepare.sh) under tree storage without traces,
# compact roots (the default, 6.1 bytes a state) against root pairs
# (`--tree-roots pairs`, 8.0), on the three nets of 10^9 states or more,
# two rounds in alternating order. Issue 17 asks for 3e8 states/s with
# compression on nets of 10^9 states or more; compact roots reach
# 2.98-2.99e8 on Parking-PT-208 (../2026-12-05d-h200-variants-and-tests/),
# and root pairs were 1.10-1.20x faster than compact roots when last
# measured side by side (../2026-11-29b-h200-layout/, older kernels).
# About 150 s. Carry the folder and set D to it.
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
log=run-pairs
source "$here/../2026-12-04g-h200-verify-and-jump/common.sh"
printf '#!/bin/sh\nexec /tmp/bin/final "$@" --tree-roots pairs\n' > /tmp/bin/pairs
chmod +x /tmp/bin/pairs
printf 'build\tstorage\ttraces\tnet\tstates\tsearch_s\tstates/s\tbytes/state\tmemory\texit\n'
for round in 1 2; do
  builds=(main pairs); (( round == 2 )) && builds=(pairs main)
  for model in AutoFlight-PT-06a Philosophers-PT-000020 Parking-PT-208; do
    for build in "${builds[@]}"; do run "$build" tree no-trace $model; done
  done
  echo "round $round at $(( $(date +%s) - start )) s"
done
grep -h "AutoFlight-PT-06a\|Philosophers-PT-000020\|Parking-PT-208" /tmp/shared/mcc/oracles.tsv | cut -f1-4
tar -C "$out" -cJf "$out/json-$log.tar.xz" json && rm -rf "$out/json"
echo "took $(( $(date +%s) - start )) s"; date -u
