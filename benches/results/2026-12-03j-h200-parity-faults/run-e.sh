#!/usr/bin/env bash
# Device call E (session 31), issue 15: why call D's `after` (9c371fb9)
# took pgrand-200k-s11 from 0.059 to 0.074 s under `--engine auto`.
# Both builds, 7 rounds: `auto` (16 threads: pp, tangle and Zielonka race)
# with the winner named, and `--threads 1` (pp alone); then pp's debug
# line once per build. Carried: as call D.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/g
exec > >(tee "$out/run-e.txt") 2>&1
d=.device/s31
nvidia-smi -L; nproc; date -u; cat $d/BUILD
xz -dc $d/warpcheck.xz > /tmp/bin/after; xz -dc $d/before.xz > /tmp/bin/before; chmod +x /tmp/bin/*
g=/tmp/g/pgrand-200k-s11.pg
zcat $d/../s31g/pgrand-200k-s11.pg.gz > $g
for run in 1 2 3 4 5 6 7; do
  for b in before after; do
    for t in 0 1; do
      args=(); [ $t = 1 ] && args=(--threads 1)
      echo "pgrand $b threads=${t/0/all} run $run: $(/tmp/bin/$b --quiet --format json parity $g "${args[@]}" | grep -E '"(solver|solve_seconds)"' | tr -d '\n ')"
    done
  done
done
for b in before after; do
  RUST_LOG=warpcheck::parity=debug /tmp/bin/$b parity $g --threads 1 2>&1 | grep -E "DEBUG|time:" | sed "s/^/$b: /"
done
date -u
