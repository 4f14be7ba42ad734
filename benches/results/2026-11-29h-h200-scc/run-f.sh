#!/usr/bin/env bash
# Device call F: the GPU tests of every area this session changed, on the
# binaries of its last code commit (f37ea28): prob (the new maximal
# reachability test, the oracles, the precomputations), SCC, MEC and
# livelock. Carried: .device/f (xz'd warpcheck and test binary, two MCC
# models and the oracles), .device/shared, .device/graphs.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin
exec > >(tee "$out/run-f.txt") 2>&1
nvidia-smi -L
for f in warpcheck tests; do xz -dc .device/f/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
cp /tmp/bin/tests .device/tests
WARPCHECK_MCC=.device/f/mcc WARPCHECK_SHARED=.device/shared WARPCHECK_BIN=/tmp/bin/warpcheck WARPCHECK_GRAPHS=.device/graphs \
    timeout 240 bash scripts/gpu_test.sh prob::the_gpu scc::colouring scc::the_gpu scc::gpu scc::the_command_stores \
    scc::explored mec::the_gpu livelock::gpu 2>&1 | grep -E "^test |test result|panicked|assert" | head -40
