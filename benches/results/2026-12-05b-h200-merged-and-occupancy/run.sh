#!/usr/bin/env bash
# Session 42's last device call: (1) the merged main (jump-grows-at-spill +
# ranks, each verified on the GPU alone) on the three nets of 10^9 states
# or more, under trees without traces, beside kernels that let 5 and 6
# blocks of 8 warps share an SM (MIN_BLOCKS 40/WARPS, 48/WARPS instead of
# 32/WARPS: fewer registers, more insertions in flight), two rounds on
# Parking-PT-208; (2) the merged main's GPU tests that cover both branches,
# in the time left of 400 s.
# Build: cargo build --release; cargo test --release --no-run; then put
# into D: final.xz (the CLI), tests.xz (target/release/deps/it-*),
# kv/mb5, kv/mb6 (copies of kernels/ with MIN_BLOCKS changed),
# mcc3.tar.xz (from 2026-12-05a's folder); carry D.
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
log=run
source benches/results/2026-12-04g-h200-verify-and-jump/common.sh
# common.sh's `run` takes the branch's CLI as `jump`: here that is main's.
ln -sf /tmp/bin/final /tmp/bin/jump
for round in 1 2; do
  for k in branch mb5 mb6; do run $k tree no-trace Parking-PT-208; done
  echo "round $round at $(( $(date +%s) - start )) s"
done
for model in AutoFlight-PT-06a Philosophers-PT-000020; do
  for k in branch mb5 mb6; do run $k tree no-trace $model; done
done
grep -h "blocks x" "$out"/json/*Parking*.json | sort | uniq -c | cut -c1-160
nccl=$(scripts/nccl.sh) && export LD_LIBRARY_PATH="$nccl${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
left=$(( 400 - ($(date +%s) - start) ))
echo "at $(( $(date +%s) - start )) s; tests get $left s"
WARPCHECK_BIN=/tmp/bin/final timeout $left /tmp/bin/tests --include-ignored --test-threads=1 \
  gpu::spilling gpu::specs_match gpu::compact_tables_that_grow gpu_partitioned::partitioned_search \
  gpu_partitioned::traces_across gpu_partitioned::the_cli_splits gpu_partitioned::ranks_in > /tmp/tests.txt 2>&1
echo "tests rc $?"
grep -E "^test |test result" /tmp/tests.txt
grep -E -A12 "^---- |panicked" /tmp/tests.txt | head -60
cp /tmp/tests.txt "$out/tests.txt"
echo "took $(( $(date +%s) - start )) s"; date -u
