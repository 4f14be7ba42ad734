#!/usr/bin/env bash
# Prepared in session 41, NOT YET RUN: the experiments on the branch
# jump-grows-at-spill once next-g.sh (2026-12-04g) has verified it. Build with
# prepare.sh (this folder), carry its folder and set D to it.
# Variants, each under trees without traces on the three nets of 10^9
# states or more (AutoFlight-PT-06a, Parking-PT-208, Philosophers-PT-000020):
#   branch  the branch's CLI and kernels (the baseline)
#   dp      its CLI with kv/dp: a warp claims two queue chunks at once and L2
#           fetches the second's slots while it expands the first
#   jump8, jump16   its CLI with the jump's queues holding 1/8 and 1/16 of
#           its slots instead of a quarter (a larger jump, less full)
# Round 1 runs every variant on every net; round 2 (if round 1 took less
# than 280 s) runs them again in reverse order, to see the spread. Then
# AutoFlight-PT-06a plain, branch against dp (dp changes plain storage's
# claims too). No GPU tests: a variant that wins by 1 % or more is verified
# in a call of its own before it lands.
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
log=run-h
source "$here/../2026-12-04g-h200-verify-and-jump/common.sh"
variants=(branch dp jump8 jump16)
for round in 1 2; do
  if (( round == 2 )); then
    (( $(date +%s) - start < 280 )) || break
    variants=(jump16 jump8 dp branch)
    mv "$out/json" "$out/json-round1" && mkdir "$out/json"
  fi
  for model in AutoFlight-PT-06a Parking-PT-208 Philosophers-PT-000020; do
    for v in "${variants[@]}"; do run $v tree no-trace $model; done
    echo "round $round at $(( $(date +%s) - start )) s"
  done
done
for v in branch dp; do run $v plain no-trace AutoFlight-PT-06a; done
echo "took $(( $(date +%s) - start )) s"; date -u
