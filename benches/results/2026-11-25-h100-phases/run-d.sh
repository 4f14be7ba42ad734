#!/usr/bin/env bash
# Device call D: `warpcheck mec` on the GPU beside Storm's MEC
# decomposition (scripts/mec_bench.sh: stormpy builds the MDPs, both
# decompose the same model, MECs compared, best of 3), then the phases of
# wlan-6-0's SCC (gpu_work) and MEC (debug log). One output file.
# Carried: .device/warpcheck, .device/wheels, .device/qvbs.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/phases-out}
mkdir -p "$out"
exec > >(tee "$out/run-d.txt") 2>&1
nvidia-smi -L
timeout 400 scripts/mec_bench.sh .device/warpcheck .device/wheels .device/qvbs /tmp/mecb \
    --engines gpu --repeats 3 wlan-6-0 consensus-6-2 csma-3-4 zeroconf-1000-8-false 2>/tmp/mec.err
tail -5 /tmp/mec.err
umb=$(ls /tmp/mecb/models/wlan-6-0*.umb 2>/dev/null | head -1)
if [[ -n $umb ]]; then
    for run in 1 2 3; do
        .device/warpcheck --format json -q scc "$umb" --engine gpu | python3 -c \
            "import json,sys; r=json.load(sys.stdin); print(r['decompose_seconds'], json.dumps(r['gpu_work']))"
    done
    RUST_LOG=warpcheck::mec=debug,warpcheck::scc=debug .device/warpcheck -q mec "$umb" --engine gpu 2>&1 | grep DEBUG
fi
