#!/usr/bin/env bash
# Device call A: the GPU tests of the areas this change touched (prob,
# with the new maximal reachability test, and MEC), on the binaries built
# from this tree. Carried: .device/a (xz'd warpcheck and test binary),
# .device/shared (../shared/prob), .device/graphs.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
b=.device/a
mkdir -p "$out" /tmp/bin
exec > >(tee "$out/run-a.txt") 2>&1
nvidia-smi -L
for f in warpcheck tests scc_bench; do xz -dc $b/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
cp /tmp/bin/tests .device/tests
WARPCHECK_SHARED=.device/shared WARPCHECK_BIN=/tmp/bin/warpcheck WARPCHECK_GRAPHS=.device/graphs \
    timeout 300 bash scripts/gpu_test.sh prob::the_gpu mec::the_gpu 2>&1 \
    | grep -E "^test |test result|panicked|assert" | head -40
