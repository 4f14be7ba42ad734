#!/usr/bin/env bash
# Device call G: as F, with the pool's first allocation taken when the
# device is opened (and the uploads through cuMemAlloc), against the
# build of call D (warpcheck-prev); every MEC phase of the debug log.
# Carried: .device/b31 (xz'd binaries), .device/wheels, .device/qvbs.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/profile-out}
mkdir -p "$out" /tmp/bin
exec > >(tee "$out/run-g.txt") 2>&1
nvidia-smi -L
for f in warpcheck warpcheck-prev; do xz -dc .device/b31/$f.xz > /tmp/bin/$f; chmod +x /tmp/bin/$f; done
timeout 200 scripts/mec_bench.sh /tmp/bin/warpcheck .device/wheels .device/qvbs /tmp/mecb \
    --engines gpu --repeats 3 csma-3-4 wlan-6-0 2>/tmp/mec.err | grep -E "^\| [a-z]"
for name in csma-3-4 wlan-6-0; do
    umb=$(ls /tmp/mecb/models/$name*.umb | head -1)
    for run in 1 2 3; do
        for bin in warpcheck-prev warpcheck; do
            echo "== $name $bin: $(RUST_LOG=warpcheck::mec=debug /tmp/bin/$bin -q --format json mec "$umb" --engine gpu 2>&1 \
                | grep -oE "phases=.*|\"decompose_seconds\": [0-9.]+" | tr '\n' ' ')"
        done
    done
done
