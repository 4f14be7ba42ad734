#!/usr/bin/env bash
# Session 47's prepared call S, one H200: the node table that grows by
# generations (branch node-generations) against the commit it grew from.
# The three large nets of issue 17 under tree storage without traces
# (Parking-PT-208 twice, alternating), the memory of a small net under
# tree storage, then the GPU tests of tree storage first and of the rest
# of the explorer after, one process a test, in the time left of LIMIT
# (default 585) seconds.
# Carry .device/gens and set D=.device/gens.
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
call_start=$(date +%s)
log=run-s
source "$here/../2026-12-04g-h200-verify-and-jump/common.sh"
printf 'build\tstorage\ttraces\tnet\tstates\tsearch_s\tstates/s\tbytes/state\tmemory\texit\n'
# NETS: the nets, each run by base then gen; TESTS: the test filters, in
# groups separated by ";" (call S ran the defaults; call T, after the
# first version's slowdown, the arguments that its README gives).
for net in ${NETS:-Parking-PT-208 Parking-PT-208 Philosophers-PT-000020 AutoFlight-PT-06a Philosophers-PT-000005}; do
  for b in base gen; do
    (( $(date +%s) - call_start + 40 < ${LIMIT:-585} )) || { echo "no time for $b $net"; continue; }
    run $b tree no-trace $net; tree_details $b-tree-no-trace-$net
  done
done
grep -hE "Parking-PT-208|Philosophers-PT-0000(20|05)|AutoFlight-PT-06a" /tmp/shared/mcc/oracles.tsv | cut -f1-3
pack_and_test ${LIMIT:-585} "${TESTS:-gpu::the_node_table_grows gpu::tree_storage_of_a_small gpu::a_full_node_table gpu::auto_storage \
  gpu::compact_roots gpu::specs_match gpu::mcc_models gpu_partitioned::compact gpu::long_chains gpu::compact_tables \
  gpu::spilling gpu::tree_storage_matches;gpu::a_ gpu::random gpu::wide gpu::generated gpu::tables gpu::small_mcc gpu::device \
  gpu::exported gpu::the_ gpu_partitioned::}"
