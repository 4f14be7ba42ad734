#!/usr/bin/env bash
# Device call E: where csma-3-4's MEC time goes (debug log phases and an
# ncu kernel list), with the build of call D, beside Storm once more.
# Carried: .device/b30 (xz'd binaries), .device/wheels, .device/qvbs.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/profile-out}
here=benches/results/2026-11-25b-h100-profile
mkdir -p "$out" /tmp/bin
exec > >(tee "$out/run-e.txt") 2>&1
nvidia-smi -L
xz -dc .device/b30/warpcheck.xz > /tmp/bin/warpcheck; chmod +x /tmp/bin/warpcheck
timeout 200 scripts/mec_bench.sh /tmp/bin/warpcheck .device/wheels .device/qvbs /tmp/mecb \
    --engines gpu --repeats 3 csma-3-4 consensus-6-2 zeroconf-1000-8-false 2>/tmp/mec.err | grep -E "^\| [a-z]"
for name in csma-3-4 consensus-6-2 zeroconf-1000-8-false; do
    umb=$(ls /tmp/mecb/models/$name*.umb | head -1)
    echo "== $name debug log"
    for run in 1 2; do
        RUST_LOG=warpcheck::mec=debug,warpcheck::scc=debug /tmp/bin/warpcheck -q --format json mec "$umb" --engine gpu 2>&1 \
            | grep -E "DEBUG|decompose_seconds|elapsed"
    done
done
umb=$(ls /tmp/mecb/models/csma-3-4*.umb | head -1)
timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum --csv --log-file /tmp/ncu-csma.csv \
    /tmp/bin/warpcheck -q mec "$umb" --engine gpu > /dev/null 2>&1
python3 $here/ncu_kernels.py /tmp/ncu-csma.csv --first 150
