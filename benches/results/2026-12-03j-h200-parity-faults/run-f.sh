#!/usr/bin/env bash
# Device call F (session 31), issue 15: the final build (`after`,
# 0c67764e) against `before` (0232e2d8) and Oink with `--engine auto` on
# pgrand-200k-s11 and on the random game of 10^5 vertices of call D, 9
# rounds each, runs interleaved. Carried: as call D.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/g
exec > >(tee "$out/run-f.txt") 2>&1
d=.device/s31
nvidia-smi -L; nproc; date -u; cat $d/BUILD
xz -dc $d/warpcheck.xz > /tmp/bin/after; xz -dc $d/before.xz > /tmp/bin/before; chmod +x /tmp/bin/*
zcat $d/../s31g/pgrand-200k-s11.pg.gz > /tmp/g/pgrand-200k-s11.pg
$d/gen/parity_random 100000 1000 5 15 7 > /tmp/g/random-100k.pg
export LD_LIBRARY_PATH=$d/lib
for name in pgrand-200k-s11 random-100k; do
  g=/tmp/g/$name.pg
  for run in $(seq 1 9); do
    for b in before after; do
      echo "$name $b auto run $run: $(/tmp/bin/$b --quiet --format json parity $g | grep -oE '"solve_seconds": [0-9.]+' | grep -oE '[0-9.]+$')"
    done
    for s in "zlk -w 16" npp tl; do
      echo "$name oink $s run $run: $(timeout 30 $d/oink --$s -z 25 $g 2>&1 | grep -oE 'total solving time: [0-9.]+' | grep -oE '[0-9.]+$')"
    done
  done
done
date -u
