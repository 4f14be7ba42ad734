#!/usr/bin/env bash
# `--solver spm --engine cpu` on ../shared/parity/pgrand-200k-s11 with and
# without `--shortcuts`, by the build before the filtered queueing
# (BEFORE, a path) and by this build (target/release/warpcheck): lifts,
# moves that skip a chain, and solve seconds (3 runs each). Run from the
# repository root.
set -u
g=../shared/parity/pgrand-200k-s11.pg.gz
for b in "$BEFORE" target/release/warpcheck; do
  for flag in "" --shortcuts; do
    for run in 1 2 3; do
      log=$(RUST_LOG=warpcheck=debug timeout 60 "$b" --quiet --format json parity $g \
        --engine cpu --solver spm $flag 2>&1)
      echo "$b ${flag:-plain} run $run: $(grep -o 'lifts=[0-9]* skipping=[0-9]*' <<<"$log")" \
        "$(grep -o '"solve_seconds": [0-9.]*' <<<"$log")"
    done
  done
done
