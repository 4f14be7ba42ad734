#!/usr/bin/env bash
# GPU throughput on large MCC models beside the reference engine, in one
# run on one machine; prints one line per run (see benches/results/gpu.md).
#
# Build here (no CUDA needed), besides the MCC copy of scripts/gpu_test.sh:
#   cargo bench --no-run --bench gpu_explore   # prints the bench binary's path
#   mkdir -p .device && cp target/release/deps/gpu_explore-<hash> .device/gpu-bench
# Then run there (device tool: carry [".device"]):
#   scripts/gpu_bench.sh [MODELS] [REFERENCE_MODELS] [ABLATE_MODELS]
# each a comma-separated list of folder names under $WARPCHECK_MCC
# ("-" for none). $WARPCHECK_BENCH_BIN picks another bench binary (e.g. an
# older build copied to .device/gpu-bench-old, to compare kernels in the
# same run: call the script once per binary). $WARPCHECK_TEST_BIN instead
# runs a test binary built before benches/gpu_explore.rs existed (then
# `tests/gpu.rs`, copied from target/release/deps/gpu-<hash>), where the
# benchmark is the ignored test `bench`. $WARPCHECK_BENCH_GROUPS
# (e.g. "4,8,16") adds runs with those vector-group sizes on every model,
# with each read path in $WARPCHECK_BENCH_READS (e.g. "ldg,texture").
#
# With $WARPCHECK_CLI_ENGINES set ("MODEL:engine+engine,..."), the release
# binary $WARPCHECK_CLI (default .device/warpcheck, copied there stripped
# from target/release/warpcheck) also runs `check --format json --no-trace`
# with each named engine (gpu, cpu = `--engine cpu --threads 16`,
# reference), so that the engines' rates and ratios come from one run.
set -euo pipefail
export WARPCHECK_MCC=${WARPCHECK_MCC:-.device/mcc}
export WARPCHECK_BENCH=${1:-Peterson-PT-3,Referendum-PT-0015,DLCround-PT-03a,AutoFlight-PT-05a,DES-PT-01a,ASLink-PT-01a,FlexibleBarrier-PT-08a,Peterson-PT-4}
export WARPCHECK_BENCH_REFERENCE=${2:-Peterson-PT-3,Referendum-PT-0015}
export WARPCHECK_BENCH_ABLATE=${3:-AutoFlight-PT-05a}
export WARPCHECK_BENCH_GROUPS=${WARPCHECK_BENCH_GROUPS:-}
export WARPCHECK_BENCH_READS=${WARPCHECK_BENCH_READS:-ldg}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
if [[ -n ${WARPCHECK_TEST_BIN:-} ]]; then
    "$WARPCHECK_TEST_BIN" --ignored --exact bench --nocapture --test-threads=1
else
    "${WARPCHECK_BENCH_BIN:-.device/gpu-bench}"
fi

cli=${WARPCHECK_CLI:-.device/warpcheck}
engines=${WARPCHECK_CLI_ENGINES:-}
for job in ${engines//,/ }; do
    model=${job%%:*}
    for engine in ${job#*:}; do
        engine=${engine//+/ }
        for e in $engine; do
            args=(--engine "$e")
            [[ $e == cpu ]] && args+=(--threads 16)
            "$cli" check "$WARPCHECK_MCC/$model/model.pnml" "${args[@]}" --format json --no-trace |
                python3 -c 'import json,sys; r=json.load(sys.stdin); print("cli %s %s [%s]: states %d transitions %d | %.3fs = %.3e states/s" % (sys.argv[1], sys.argv[2], r["engine"], r["states"], r["transitions"], r["search_seconds"], r["states"]/r["search_seconds"]))' "$model" "$e" || echo "cli $model $e: failed"
        done
    done
done
