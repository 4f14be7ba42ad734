#!/usr/bin/env bash
# Preparing a game on the CPU (validation, then the predecessor lists:
# `prepare_seconds`) before and after the chunked validation, on the
# 2-core machine: `tree 24 2` (1.7·10^7 vertices, 3.4·10^7 moves), 5
# alternate runs each of `--solver pp --engine cpu`. BEFORE and AFTER name
# the two `warpcheck` binaries (f933b677 and this session's build).
set -u
game=/tmp/tprop23.pg
[ -f $game ] || cargo run -q --release --example parity_propagation tree 24 2 > $game
for round in 1 2 3 4 5; do
  for build in BEFORE AFTER; do
    echo "$build: $(${!build} --format json parity $game --solver pp --engine cpu -q \
      | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["prepare_seconds"], r["solve_seconds"], r["won_by_even"])')"
  done
done
