#!/usr/bin/env bash
# GPU engine tests on the GPU machine, from the repository root.
#
# Build here (no CUDA needed):
#   cargo test --release --no-run --test it    # prints the test binary's path
#   mkdir -p .device && cp target/release/deps/it-<hash> .device/tests
#   cp -r ../shared/mcc .device/mcc            # published MCC models and oracles
# Then run this script there (device tool: carry [".device"]).
# Arguments go to the test binary (test name filters; default: the GPU
# tests of every area, `gpu:: gpu_partitioned:: scc::gpu scc::the_gpu scc::explored
# mec::the_gpu livelock::gpu`; the other
# tests expect the build tree, e.g. the CLI binary). The livelock tests read
# `$WARPCHECK_GRAPHS` (tiny-10, cycle-10, twocliques-60, starsinks-5000 and
# oracles.tsv of ../shared/graphs), the CLI ones `$WARPCHECK_BIN`.
set -euo pipefail
bin=.device/tests
export WARPCHECK_MCC=${WARPCHECK_MCC:-.device/mcc}
export WARPCHECK_MCC_MAX=${WARPCHECK_MCC_MAX:-10000000}
[[ $# -gt 0 ]] || set -- gpu:: gpu_partitioned:: scc::gpu scc::the_gpu scc::explored mec::the_gpu livelock::gpu
# NCCL for the partitioned search's tests (scripts/nccl.sh finds it).
if nccl=$(scripts/nccl.sh); then
    export LD_LIBRARY_PATH="$nccl${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" WARPCHECK_REQUIRE_NCCL=1
fi
# NVLink multicast stays off on shared machines (the device notes).
export NCCL_NVLS_ENABLE=0
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
"$bin" --include-ignored --test-threads=1 "$@"
