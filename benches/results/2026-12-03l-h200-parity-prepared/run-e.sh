#!/usr/bin/env bash
# Device call E (session 32), issue 15: after the review commit 74aeb772
# (the CLI's solve step prepares the game on the CPU path), the parity GPU
# tests that run the command line, races, stops and the preprocessing with
# every rest solver; no GPU code but the CLI's changed since call D.
# Carried: .device/s32h (the build, the test binary, ../shared/parity).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/shared
exec > >(tee "$out/run-e.txt") 2>&1
d=.device/s32h
start=$(date +%s)
nvidia-smi -L; date -u; cat $d/BUILD
xz -dc $d/warpcheck.xz > /tmp/bin/warpcheck; xz -dc $d/tests.xz > /tmp/bin/tests; chmod +x /tmp/bin/*
tar -C /tmp/shared -xJf $d/parity.tar.xz
WARPCHECK_KERNEL_CACHE=/tmp/kc WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/warpcheck \
  timeout 400 /tmp/bin/tests --include-ignored --test-threads=1 parity_gpu::the_gpus parity_gpu::a_race parity_gpu::a_stop parity_gpu::the_cli 2>&1 \
  | grep -E -A3 "^test |test result|panicked|assert|SKIPPED" | grep -v "^\s*$" | head -80
echo "tests took $(( $(date +%s) - start )) s"; date -u
