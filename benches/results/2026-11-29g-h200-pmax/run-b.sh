#!/usr/bin/env bash
# Device call B: side.py on four MDPs built by stormpy (Pmax of
# zeroconf-1000-8-false, csma-3-4 and consensus-6-2, Rmin of wlan-6-0):
# warpcheck before (1acac8f: host precomputations) and after (this tree),
# and Storm 2.0's sound method. Carried: .device/b (xz'd binaries),
# .device/wheels (stormpy), .device/qvbs (the PRISM files).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin
exec > >(tee "$out/run-b.txt") 2>&1
nvidia-smi -L; nproc
for f in warpcheck warpcheck-before; do xz -dc .device/b/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
source scripts/stormpy_env.sh
stormpy_python .device/wheels /tmp/storm
timeout 480 "$python" benches/results/2026-11-29g-h200-pmax/side.py .device/qvbs /tmp/pmax \
    /tmp/bin/warpcheck-before /tmp/bin/warpcheck zeroconf-1000-8-false csma-3-4 consensus-6-2 wlan-6-0
echo "exit $?"
