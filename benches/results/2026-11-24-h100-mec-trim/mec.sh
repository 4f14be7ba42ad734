#!/usr/bin/env bash
# MEC on the GPU beside Storm (scripts/mec_bench.sh, this commit's binary),
# then debug logs of `mec` and `scc` on wlan-6-0 (phases, rounds, trimming).
cd "$(dirname "$0")/../../.."
out=/tmp/mecb
timeout 420 scripts/mec_bench.sh .device/warpcheck .device/wheels .device/qvbs $out \
    --engines gpu --repeats 3 wlan-6-0 consensus-6-2 csma-3-4 zeroconf-1000-8-false > "$OUT/storm.txt" 2> "$OUT/storm.err"
cat "$OUT/storm.txt"
RUST_LOG=warpcheck::scc=debug,warpcheck::mec=debug .device/warpcheck mec $out/models/wlan-6-0.umb --engine gpu -q > /dev/null 2> "$OUT/wlan-mec-debug.txt"
RUST_LOG=warpcheck::scc=debug .device/warpcheck scc $out/models/wlan-6-0.umb --engine gpu --format json > "$OUT/wlan-scc.json" 2> "$OUT/wlan-scc-debug.txt"
grep -h "trimming\|phases" $OUT/wlan-mec-debug.txt | cut -c1-300
