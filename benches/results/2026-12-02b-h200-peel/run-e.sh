#!/usr/bin/env bash
# Device call E (issue 14): the GPU tests of prob and MEC on the final
# binaries (the tests' helpers were tidied after call D; the library did
# not change but for comments).
# Carried: .device/peel (xz'd warpcheck and the tests), .device/shared.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin
exec > >(tee "$out/run-e.txt") 2>&1
for f in warpcheck tests; do
    xz -dc .device/peel/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f
done
cp /tmp/bin/tests .device/tests
WARPCHECK_SHARED=.device/shared WARPCHECK_BIN=/tmp/bin/warpcheck \
    timeout 200 bash scripts/gpu_test.sh prob::the_gpu prob::a_peel prob::bounds_cut prob::stages \
    mec::the_gpu 2>&1 | grep -E "^test |test result|panicked|assert|SKIPPED|seed|state" | head -60
