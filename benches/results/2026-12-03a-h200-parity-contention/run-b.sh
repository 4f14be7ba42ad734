#!/usr/bin/env bash
# Device call B (session 25), issue 15: where the GPU's side of `--engine
# auto` slows the CPU's on counter_qpt 500000 (call A: 0.068 s by median
# against 0.049 s for --engine cpu). A probe build (5d3c51b1 with
# probe.patch) whose GPU side, by environment, first sleeps
# (WC_GPU_SLEEP_MS, watching the stop) or stops after loading its kernels
# and uploading the game (WC_GPU_SETUP_ONLY). Configurations in turn, 9
# runs each: auto; cpu; auto with the GPU asleep throughout (a context
# open, nothing done); auto with the set-up only; auto with the GPU
# starting after 30 ms. Then one auto run with debug logs.
# Carried: .device/s25.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/games
exec > >(tee "$out/run-b.txt") 2>&1
d=.device/s25
nvidia-smi -L; nproc; date -u
xz -dc $d/warpcheck-probe.xz > /tmp/bin/probe && chmod +x /tmp/bin/probe
$d/gen/counter_qpt 500000 > /tmp/games/counter_qpt-500000.pg
export WARPCHECK_KERNEL_CACHE=/tmp/kc
field() { grep -E "\"($1)\"" | tr -d '\n' | tr -s ' '; }
g=/tmp/games/counter_qpt-500000.pg
/tmp/bin/probe --quiet parity $g --engine gpu > /dev/null  # fills the kernel cache
for run in 1 2 3 4 5 6 7 8 9; do
  for config in "auto||--engine auto" "cpu||--engine cpu" "gpu-asleep|WC_GPU_SLEEP_MS=1000000|--engine auto" \
                "gpu-setup-only|WC_GPU_SETUP_ONLY=1|--engine auto" "gpu-after-30ms|WC_GPU_SLEEP_MS=30|--engine auto"; do
    IFS='|' read -r label envs rest <<<"$config"; read -r -a args <<<"$rest"
    r=$(env $envs timeout 60 /tmp/bin/probe --quiet --format json parity $g "${args[@]}" --timeout 30)
    echo "$label run $run: rc=$? $(echo "$r" | field 'engine|solve_seconds|elapsed_seconds|won_by_even')"
  done
done
RUST_LOG=warpcheck=debug timeout 60 /tmp/bin/probe --format json parity $g --engine auto 2>&1 | tail -40
date -u
