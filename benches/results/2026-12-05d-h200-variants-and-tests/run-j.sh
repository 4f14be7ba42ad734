#!/usr/bin/env bash
# Call J, prepared in session 43 for branch first-table-fits
# (Geometry::first_table: a first table of most of --memory gets the
# queues of a table that grows when it fills, not a slot each: in call I
# `--initial-table 51G` ended with exit 2). Since session 44 it runs branch
# gpu-check: first-table-fits with main and kernel-lookups merged.
# 1. Parking-PT-208 under trees without traces, default first table and
#    --initial-table 51G (the size it grows to), and AutoFlight-PT-05a with
#    51G; 2. one GPU test of each algorithm whose kernels now come from one
#    module look-up (at most 150 s); 3. the new GPU test, then the explorer
#    GPU tests that call I had no time for (from gpu::compact_roots on),
#    until CALL_END less 10 s.
#   (D: branch gpu-check's CLI and test binary, as README.md says)
#   CALL_END=$(( $(date +%s) + 330 )) D=.device/next2 bash benches/results/2026-12-05d-h200-variants-and-tests/run-j.sh
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
log=run-j
end=${CALL_END:-$(( $(date +%s) + 400 ))}
source "$here/../2026-12-04g-h200-verify-and-jump/common.sh"
ln -sf /tmp/bin/final /tmp/bin/jump
printf '#!/bin/sh\nexec /tmp/bin/final "$@" --initial-table 51G\n' > /tmp/bin/init51
chmod +x /tmp/bin/init51
run branch tree no-trace Parking-PT-208
run init51 tree no-trace Parking-PT-208
run init51 tree no-trace AutoFlight-PT-05a
tail -c 600 "$out"/json/init51-*.err; grep -h "error" "$out"/json/*.json | head -c 2000
nccl=$(scripts/nccl.sh) && export LD_LIBRARY_PATH="$nccl${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "at $(( $(date +%s) - start )) s; module look-up tests get at most 150 s"
WARPCHECK_BIN=/tmp/bin/final timeout 150 /tmp/bin/tests --include-ignored --test-threads=1 \
  scc::the_gpu_methods_give_the_reference_partition mec::the_gpu_engine_gives_storms_mecs \
  prob::the_gpus_precomputations_equal_the_hosts prob::the_gpus_peel_solves_acyclic_models_in_one_update \
  parity_gpu::gpu_spm_equals_the_cpus_on_small_random_games \
  parity_gpu::the_gpus_preprocessing_with_any_rest_solver_gets_the_references_winners \
  > "$out/tests-j-lookups.txt" 2>&1
echo "module look-up tests rc $?"
grep -E "^test |test result" "$out/tests-j-lookups.txt"
grep -E -A12 "^---- |panicked" "$out/tests-j-lookups.txt" | head -40
left=$(( end - 10 - $(date +%s) ))
echo "at $(( $(date +%s) - start )) s; tests get $left s"
WARPCHECK_BIN=/tmp/bin/final timeout $left /tmp/bin/tests --include-ignored --test-threads=1 gpu::a_first_table \
  gpu::compact_roots gpu::device_errors gpu::tree_storage gpu::tables_that_grow gpu::exported gpu::generated \
  gpu::long_chains gpu::random gpu::wide_random gpu::the_ gpu::devices gpu_partitioned:: \
  --skip parity_gpu --skip mcc_models --skip partitioned_search --skip traces_across --skip the_cli_splits --skip ranks_in \
  > "$out/tests-j.txt" 2>&1
echo "tests rc $?"
grep -E "^test |test result" "$out/tests-j.txt"
grep -E -A12 "^---- |panicked" "$out/tests-j.txt" | head -60
tar -C "$out" -cJf "$out/json-$log.tar.xz" json && rm -rf "$out/json"
echo "took $(( $(date +%s) - start )) s"; date -u
