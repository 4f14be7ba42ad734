#!/usr/bin/env bash
# Device call D (session 32), issue 15: the parity GPU tests on the final
# build (a8775f27: call C's build plus a progress message while the game
# is prepared), every test of tests/it/parity_gpu.rs.
# Carried: .device/s32g (the build, the test binary, ../shared/parity).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/shared
exec > >(tee "$out/run-d.txt") 2>&1
d=.device/s32g
start=$(date +%s)
nvidia-smi -L; date -u; cat $d/BUILD
xz -dc $d/warpcheck.xz > /tmp/bin/warpcheck; xz -dc $d/tests.xz > /tmp/bin/tests; chmod +x /tmp/bin/*
tar -C /tmp/shared -xJf $d/parity.tar.xz
WARPCHECK_KERNEL_CACHE=/tmp/kc WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/warpcheck \
  timeout 400 /tmp/bin/tests --include-ignored --test-threads=1 parity_gpu:: 2>&1 \
  | grep -E -A3 "^test |test result|panicked|assert|SKIPPED" | grep -v "^\s*$" | head -80
echo "tests took $(( $(date +%s) - start )) s"; date -u
