#!/usr/bin/env bash
# Session 46's prepared call R, one H200 (on an H100 the Parking runs move
# their table through host memory and say little): issue 13's CPU scaling
# on two quiet cores (../2026-12-05l-prepared/run.sh, about 90 s, into
# $OUT/run.txt); Parking-PT-208 under tree storage without traces with
# main (its last table 51.0 GiB, 50.8 % full) and with the jump capped at
# 40 and 34 GiB (about 69 % and 76 % full), twice each: in call P a larger,
# emptier table (66.9 GiB, 38.8 %) was 2.6 % slower; then, with the MCC
# nets, the graphs and NCCL that the GPU tests read, those that skipped in
# calls P and Q, then those they did not reach and the four that failed
# there for want of WARPCHECK_BIN, in the time left of LIMIT (default 585)
# seconds.
# Carry .device/fill and set D=.device/fill.
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
call_start=$(date +%s)
D=$D/fbscaling bash "$here/../2026-12-05l-prepared/run.sh"
log=run-r
source "$here/../2026-12-04g-h200-verify-and-jump/common.sh"
details() { python3 -c "import json,sys; r=json.load(sys.stdin); d=dict(r['engine_details']); print('   ', d.get('hash table'))" < "$out/json/$1.json" 2>/dev/null; }
printf 'build\tstorage\ttraces\tnet\tstates\tsearch_s\tstates/s\tbytes/state\tmemory\texit\n'
for b in main cap40 cap34 main cap40 cap34; do
  (( $(date +%s) - call_start + 40 < ${LIMIT:-585} )) || { echo "no time for $b"; continue; }
  run $b tree no-trace Parking-PT-208; details $b-tree-no-trace-Parking-PT-208
done
grep -h "Parking-PT-208" /tmp/shared/mcc/oracles.tsv | cut -f1-4
tar -C "$out" -cJf "$out/json-$log.tar.xz" json && rm -rf "$out/json"
# The data the GPU tests read, as scripts/gpu_test.sh sets it; calls P and
# Q set none of it, so their MCC, graph and NCCL tests skipped (and said
# so only where the harness showed it).
export WARPCHECK_BIN=/tmp/bin/final WARPCHECK_MCC=/tmp/shared/mcc WARPCHECK_GRAPHS=/tmp/shared/graphs
use_nccl && export WARPCHECK_REQUIRE_NCCL=1
# One process a test, so that each test's time is known (the whole suite
# no longer fits one call).
until=$(( call_start + ${LIMIT:-585} ))
echo "at $(( $(date +%s) - call_start )) s: tests until $(( ${LIMIT:-585} )) s"
# First those that skipped in P and Q, then those they did not reach.
timed_tests $until gpu::mcc_models gpu_partitioned::mcc_models gpu_partitioned::nccl_moves livelock::gpu
show_tests $? skipped
timed_tests $until without_a_gpu parity_gpu::gpu_spm_equals_the_cpus_on_larger parity_gpu::gpu_spm_equals_the_cpus_on_propagation \
  parity_gpu::gpu_spm_equals_the_cpus_on_random parity_gpu::gpu_spm_equals_the_cpus_on_small parity_gpu::gpu_spm_gets \
  parity_gpu::the_ prob::the_gpu scc::gpu scc::the_gpu scc::the_command_stores
show_tests $? rest
echo "took $(( $(date +%s) - call_start )) s"; date -u
