#!/usr/bin/env bash
# The CPU's preparation for `--solver spm --no-preprocessing` on the 2-core
# development machine: BEFORE builds the predecessor lists that SPM never
# reads (2a3264f9), AFTER does not. Usage: prepare-2core.sh BEFORE AFTER
# (two warpcheck binaries); the game is `parity_propagation paths 1000 1000`.
set -eu
game=/tmp/prop1000_1k.pg
[[ -f $game ]] || target/release/examples/parity_propagation paths 1000 1000 > $game
nproc
for round in 1 2 3; do
  for v in "$1" "$2"; do
    echo "$v: $("$v" --format json parity $game --engine cpu --solver spm --no-preprocessing -q |
      python3 -c 'import json,sys; r=json.load(sys.stdin); print("prepare", r["prepare_seconds"], "solve", r["solve_seconds"], "even", r["won_by_even"])')"
  done
done
