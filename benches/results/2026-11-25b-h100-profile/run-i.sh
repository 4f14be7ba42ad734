#!/usr/bin/env bash
# Device call I (final code): `warpcheck mec` beside Storm, main at
# 1dcdf34 (before) and the final build (after), alternating twice.
# Carried: .device/b33 (xz'd binaries), .device/wheels, .device/qvbs.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/profile-out}
mkdir -p "$out" /tmp/bin
exec > >(tee "$out/run-i.txt") 2>&1
nvidia-smi -L
for f in warpcheck warpcheck-before; do xz -dc .device/b33/$f.xz > /tmp/bin/$f; chmod +x /tmp/bin/$f; done
for variant in before after before after; do
    bin=/tmp/bin/warpcheck; [[ $variant == before ]] && bin=/tmp/bin/warpcheck-before
    echo "== MEC $variant"
    timeout 200 scripts/mec_bench.sh $bin .device/wheels .device/qvbs /tmp/mecb \
        --engines gpu --repeats 3 wlan-6-0 consensus-6-2 csma-3-4 zeroconf-1000-8-false 2>/tmp/mec.err | grep -E "^\| [a-z]"
done
