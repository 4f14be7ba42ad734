#!/usr/bin/env bash
# Device call G (session 31), issue 15: the GPU tests of parity that run
# the CPU's solvers beside the GPU (the races, the stop, the command line,
# the preprocessing with every rest solver), on the final build, where
# priority promotion first solves the won self-loops. The four tests of
# SPM on the GPU ran in call B; SPM's code has not changed since.
# Carried: .device/s31 (the build, the test binary, ../shared/parity).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/shared
exec > >(tee "$out/run-g.txt") 2>&1
d=.device/s31
nvidia-smi -L; date -u; cat $d/BUILD
xz -dc $d/warpcheck.xz > /tmp/bin/warpcheck; xz -dc $d/tests.xz > .device/tests; chmod +x /tmp/bin/warpcheck .device/tests
tar -C /tmp/shared -xJf $d/parity.tar.xz
WARPCHECK_KERNEL_CACHE=/tmp/kc WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/warpcheck \
  timeout 160 bash scripts/gpu_test.sh parity_gpu::the_gpus parity_gpu::a_race parity_gpu::a_stop parity_gpu::the_cli 2>&1 \
  | grep -E -A3 "^test |test result|panicked|assert|SKIPPED" | grep -v "^\s*$" | head -60
date -u
