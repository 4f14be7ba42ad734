#!/usr/bin/env bash
# Final binaries (main after the merges): MEC beside Storm, and `prob` on
# the CPU engine (16 threads) and the GPU beside Storm for the two models
# the CPU work targeted.
cd "$(dirname "$0")/../../.."
timeout 200 scripts/mec_bench.sh .device/warpcheck .device/wheels .device/qvbs /tmp/mecb \
    --engines gpu --repeats 3 wlan-6-0 consensus-6-2 csma-3-4 zeroconf-1000-8-false > "$OUT/mec.txt" 2> "$OUT/mec.err"
cat "$OUT/mec.txt"
timeout 250 scripts/prob_bench.sh .device/warpcheck .device/wheels .device/qvbs /tmp/probb \
    --storm-timeout 60 zeroconf-1000-8-false herman-15 > "$OUT/prob.txt" 2> "$OUT/prob.err"
cat "$OUT/prob.txt"
