#!/usr/bin/env bash
# Device call D (issue 14): each stage sweeps its own list of classes (no
# filter over all of them); the GPU tests run every ordering.
# 1. The GPU tests of prob and MEC.
# 2. 100 layers of 100,000 states and 1,000 of 10,000 (layers.rs: SCCs in
#    a row), before (f10b7a10) and after, alternately.
# Carried: .device/peel (xz'd warpcheck-old, warpcheck, tests, layers),
# .device/shared (../shared/prob).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
here=benches/results/2026-12-02b-h200-peel
work=/tmp/layers
mkdir -p "$out" /tmp/bin "$work"
exec > >(tee "$out/run-d.txt") 2>&1
nvidia-smi -L
for f in warpcheck-old warpcheck layers tests; do
    xz -dc .device/peel/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f
done
cp /tmp/bin/tests .device/tests

echo "== GPU tests"
WARPCHECK_SHARED=.device/shared WARPCHECK_BIN=/tmp/bin/warpcheck \
    timeout 200 bash scripts/gpu_test.sh prob::the_gpu prob::a_peel prob::bounds_cut prob::stages \
    mec::the_gpu 2>&1 | grep -E "^test |test result|panicked|assert|SKIPPED|seed|state" | head -60

for shape in "100 100000" "1000 10000"; do
    set -- $shape
    echo "== $1 layers of $2"
    /usr/bin/time -f "layers: %e s" /tmp/bin/layers $1 $2 $work/l
    for binary in warpcheck-old warpcheck warpcheck warpcheck-old; do
        echo "-- $binary"
        timeout 90 /tmp/bin/$binary -vv prob $work/l.tra --timeout 60 --property 'P=? [ F "goal" ]' \
            --engine gpu --precision 1e-6 --relative 2>&1 \
            | grep -E "P=\?|GPU (iteration|stages|peel)|numeric: (peel|stages|bounds)|time:" | cut -c1-700
    done
    rm -rf $work/l.*
done

