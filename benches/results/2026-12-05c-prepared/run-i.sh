#!/usr/bin/env bash
# Prepared in session 42, NOT YET RUN: six changes to main's search on
# Parking-PT-208, which issue 17 needs at 3·10^8 states/s (15.225 s; main
# takes 15.28–15.33 s), and on the other two nets of 10^9 states or more.
# Build with prepare.sh (this folder), carry its folder and set D to it.
# Variants, each under trees without traces:
#   branch    main (the baseline; common.sh's name for the CLI under test)
#   ldg       the network read through __ldg instead of textures
#   cache64, cache256   warp caches of inserted vectors of 64 and 256 entries
#             instead of 128 (3-word vectors: 1.5 and 6 KiB of shared memory)
#   blocks3   main with --blocks 396: three blocks an SM of the four that fit
#   init51    main with --initial-table 51G: the size Parking-PT-208's table
#             grows to, so that it never grows
# Round 1 runs every variant on Parking-PT-208, round 2 again in reverse
# order, then each on AutoFlight-PT-06a and Philosophers-PT-000020 once. No
# GPU tests: a variant that wins by 0.5 % or more on Parking-PT-208 without
# losing elsewhere gets its GPU tests in a call of its own before it lands.
# About 330 s.
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
log=run-i
source "$here/../2026-12-04g-h200-verify-and-jump/common.sh"
ln -sf /tmp/bin/final /tmp/bin/jump
# CLI variants: main with one more option (clap takes it after the model).
printf '#!/bin/sh\nexec /tmp/bin/final "$@" --blocks 396\n' > /tmp/bin/blocks3
printf '#!/bin/sh\nexec /tmp/bin/final "$@" --initial-table 51G\n' > /tmp/bin/init51
chmod +x /tmp/bin/blocks3 /tmp/bin/init51
variants=(branch ldg cache64 cache256 blocks3 init51)
for round in 1 2; do
  for v in "${variants[@]}"; do run $v tree no-trace Parking-PT-208; done
  echo "round $round at $(( $(date +%s) - start )) s"
  variants=(init51 blocks3 cache256 cache64 ldg branch)
done
for model in AutoFlight-PT-06a Philosophers-PT-000020; do
  for v in "${variants[@]}"; do run $v tree no-trace $model; done
  echo "$model at $(( $(date +%s) - start )) s"
done
grep -ho '"engine": "[^"]*"' "$out"/json/*.json | sort | uniq -c | cut -c1-170
echo "took $(( $(date +%s) - start )) s"; date -u
