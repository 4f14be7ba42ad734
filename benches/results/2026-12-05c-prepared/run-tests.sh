#!/usr/bin/env bash
# GPU tests of main's tip (D's `final` CLI and `tests` binary), which
# compare the GPU engines against the reference: first the seven that
# cover session 42's two branches, then every other explorer GPU test
# (gpu::, gpu_partitioned::) but the contest sweeps, until CALL_END
# (seconds since the epoch; default 400 s from now) less 10 s.
# Run after run-i.sh in the same call:
#   CALL_END=$(( $(date +%s) + 590 )) ... run-i.sh; D=... bash run-tests.sh
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
log=run-tests
end=${CALL_END:-$(( $(date +%s) + 400 ))}
source "$here/../2026-12-04g-h200-verify-and-jump/common.sh"
nccl=$(scripts/nccl.sh) && export LD_LIBRARY_PATH="$nccl${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# tests NAME FILTER...: the test binary on FILTER in the time left.
tests() {
  local name=$1 left=$(( end - 10 - $(date +%s) )); shift
  (( left > 20 )) || { echo "no time left for $name"; return; }
  echo "at $(( $(date +%s) - start )) s; $name get $left s"
  WARPCHECK_BIN=/tmp/bin/final timeout $left /tmp/bin/tests --include-ignored --test-threads=1 "$@" \
    > "$out/tests-$name.txt" 2>&1
  echo "$name rc $?"
  grep -E "^test |test result" "$out/tests-$name.txt"
  grep -E -A12 "^---- |panicked" "$out/tests-$name.txt" | head -60
}
tests branches gpu::spilling gpu::specs_match gpu::compact_tables_that_grow gpu_partitioned::partitioned_search \
  gpu_partitioned::traces_across gpu_partitioned::the_cli_splits gpu_partitioned::ranks_in
tests rest gpu:: gpu_partitioned:: --skip parity_gpu --skip mcc_models --skip gpu::spilling --skip gpu::specs_match \
  --skip gpu::compact_tables_that_grow --skip partitioned_search --skip traces_across --skip the_cli_splits --skip ranks_in
echo "took $(( $(date +%s) - start )) s"; date -u
