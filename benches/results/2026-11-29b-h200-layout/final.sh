#!/usr/bin/env bash
# Call 2, on the final binaries: the GPU tests of the explorer (layout by
# interaction_order, auto's plain attempt for wide vectors), then `auto`
# against `plain` on QuasiCertifProtocol-PT-06 (45 words), and the three
# contest nets of more than 10^9 states as trees, traces off and on, and
# plain without traces; the random-line read rate of the device
# (random_lines.cu).
# Carried: .device (binaries, test binary, nets, graphs).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/final-out}
mkdir -p "$out"
exec > >(tee "$out/final.txt") 2>&1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; date -u
WARPCHECK_MCC=.device/mcc-all WARPCHECK_GRAPHS=.device/graphs timeout 290 bash scripts/gpu_test.sh \
  gpu:: gpu_partitioned:: scc::explored livelock::gpu 2>&1 | grep -v "^test .* ok$" | tail -40
echo "tests exit ${PIPESTATUS[0]}"; date -u
bench() { # label kinds traces model...
  local label=$1 kinds=$2 traces=$3; shift 3
  STORAGE_BENCH_KINDS=$kinds STORAGE_BENCH_TRACE=$traces timeout 100 \
    bash scripts/storage_bench.sh .device/new/warpcheck .device/mcc "$@" | tail -n +2 | sed "s/^/$label\t/"
}
bench final "plain auto plain auto" no-trace QuasiCertifProtocol-PT-06
for model in Philosophers-PT-000020 AutoFlight-PT-06a Parking-PT-208; do
  bench final tree "no-trace trace" $model
done
date -u
for model in Philosophers-PT-000020 AutoFlight-PT-06a Parking-PT-208; do
  bench final plain no-trace $model
done
date -u
here=benches/results/2026-11-29b-h200-layout
nvcc -O3 -arch=sm_90 -o /tmp/random_lines $here/random_lines.cu && for gb in 28 64; do /tmp/random_lines $gb; done
date -u
