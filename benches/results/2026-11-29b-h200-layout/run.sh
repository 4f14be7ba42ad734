#!/usr/bin/env bash
# Call 1 (issue 17): where fields go in the vector (src/encode/layout.rs).
# Builds: old = widest first (9f66e5a's kernels and layout), po = process
# order, new = breadth-first order over the rules (interaction_order).
# Tree storage with compact roots on the three contest nets of more than
# 10^9 states, traces off and on; a kernel variant that reads a node bucket
# in one go (.device/kv/wide-nodes); then SwimmingPool-PT-07 (4.16·10^9)
# and `auto` against `plain` on nets that fit the plain table.
# Carried: .device (binaries, nets, kernel variant).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/layout-out}
mkdir -p "$out"
exec > >(tee "$out/run.txt") 2>&1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; date -u
bench() { # label build kinds traces model...
  local label=$1 build=$2 kinds=$3 traces=$4; shift 4
  STORAGE_BENCH_KINDS=$kinds STORAGE_BENCH_TRACE=$traces timeout 150 \
    bash scripts/storage_bench.sh .device/$build/warpcheck .device/mcc "$@" | tail -n +2 | sed "s/^/$label\t/"
}
for model in Philosophers-PT-000020 AutoFlight-PT-06a Parking-PT-208; do
  bench old old tree "no-trace trace" $model
  bench new new tree "no-trace trace" $model
  bench po po tree no-trace $model
  WARPCHECK_KERNEL_DIR=.device/kv/wide-nodes bench new+wide-nodes new tree no-trace $model
done
date -u
bench new new tree "no-trace trace" SwimmingPool-PT-07
date -u
# auto against plain where the plain table holds the net (auto stores
# vectors of 16 words or more as trees from the start).
for model in QuasiCertifProtocol-PT-06 IOTPpurchase-PT-C05M04P03D02 Kanban-PT-00010 DNAwalker-PT-12ringLLLarge \
  DES-PT-01a ASLink-PT-01a FlexibleBarrier-PT-08a Peterson-PT-4; do
  bench new new "plain auto plain auto" no-trace $model
done
date -u
