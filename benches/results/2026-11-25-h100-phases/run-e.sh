#!/usr/bin/env bash
# Device call E (final binaries): run-d.sh (MEC beside Storm, wlan-6-0's
# phases; the MDP uploads of 32 MiB or more now go through pinned buffers),
# then `warpcheck prob` on the GPU and on the CPU engine (16 threads)
# beside Storm's sound and default methods (scripts/prob_bench.sh), on the
# two models of issue 14's CPU work. One output file.
# Carried: .device/warpcheck, .device/wheels, .device/qvbs.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/phases-out}
mkdir -p "$out"
OUT=/tmp/run-d bash benches/results/2026-11-25-h100-phases/run-d.sh > /dev/null 2>&1
exec > >(tee "$out/run-e.txt") 2>&1
cat /tmp/run-d/run-d.txt
timeout 250 scripts/prob_bench.sh .device/warpcheck .device/wheels .device/qvbs /tmp/probb \
    --engines gpu,cpu --storm-timeout 60 zeroconf-1000-8-false herman-15 2>/tmp/prob.err
tail -12 /tmp/prob.err
