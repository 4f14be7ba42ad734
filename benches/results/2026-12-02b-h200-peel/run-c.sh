#!/usr/bin/env bash
# Device call C (issue 14): stages only where they hold 2^17 classes on
# average (the default ordering); the GPU tests run every ordering.
# 1. The GPU tests of prob and MEC.
# 2. 100 layers of 100,000 states (layers.rs: SCCs in a row), before
#    (f10b7a10) and after, alternately.
# 3. Every UMB row of ../shared/prob, before and after.
# Carried: .device/peel (xz'd warpcheck-old, warpcheck, tests, layers),
# .device/shared (../shared/prob).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
here=benches/results/2026-12-02b-h200-peel
work=/tmp/layers
mkdir -p "$out" /tmp/bin "$work"
exec > >(tee "$out/run-c.txt") 2>&1
nvidia-smi -L
for f in warpcheck-old warpcheck layers tests; do
    xz -dc .device/peel/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f
done
cp /tmp/bin/tests .device/tests

echo "== GPU tests"
WARPCHECK_SHARED=.device/shared WARPCHECK_BIN=/tmp/bin/warpcheck \
    timeout 200 bash scripts/gpu_test.sh prob::the_gpu prob::a_peel prob::bounds_cut prob::stages \
    mec::the_gpu 2>&1 | grep -E "^test |test result|panicked|assert|SKIPPED|seed|state" | head -60

echo "== 100 layers of 100000"
/usr/bin/time -f "layers: %e s" /tmp/bin/layers 100 100000 $work/l
ls -la $work
for binary in warpcheck-old warpcheck warpcheck warpcheck-old; do
    echo "-- $binary"
    timeout 90 /tmp/bin/$binary -vv prob $work/l.tra --timeout 60 --property 'P=? [ F "goal" ]' \
        --engine gpu --precision 1e-6 --relative 2>&1 \
        | grep -E "P=\?|GPU (iteration|stages|peel)|numeric: (peel|stages|bounds)|time:" | cut -c1-600
done
rm -rf $work

echo "== shared models, old then new"
timeout 80 python3 $here/models.py .device/shared/prob /tmp/bin/warpcheck-old /tmp/bin/warpcheck
