#!/usr/bin/env bash
# Session 48's call U, one H200: main's node table that grows by
# generations (`gen`) against main before it (`base`) on Parking-PT-208
# under tree storage without traces, with two smaller first generations
# (`gen16`, `gen8`: `--initial-table 16M` and `8M`, a first generation
# of 64 and 32 MiB, so that the nodes sit denser and the first
# generation's lines stay in L2; call U) or with less memory (`mem100`,
# `mem90`: `--memory 100G` and `90G`, a smaller and fuller table; call V), then the GPU tests of tree storage and of
# the rest of the explorer, one process a test, until LIMIT (default 580)
# seconds. Carry .device/gens (2026-12-05s-prepared/prepare.sh) and set
# D=.device/gens.
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
call_start=$(date +%s)
log=run-u
source "$here/../2026-12-04g-h200-verify-and-jump/common.sh"
for size in 16 8; do
  printf '#!/bin/sh\nexec /tmp/bin/gen "$@" --initial-table %sM\n' $size > /tmp/bin/gen$size
done
# mem100, mem90: `gen` with --memory 100G and 90G (a smaller, fuller table).
for size in 100 90; do
  printf '#!/bin/sh\nexec /tmp/bin/gen "$@" --memory %sG\n' $size > /tmp/bin/mem$size
done
chmod +x /tmp/bin/gen16 /tmp/bin/gen8 /tmp/bin/mem100 /tmp/bin/mem90
printf 'build\tstorage\ttraces\tnet\tstates\tsearch_s\tstates/s\tbytes/state\tmemory\texit\n'
for round in $(seq ${ROUNDS:-2}); do
  for b in ${BUILDS:-base gen gen16 gen8}; do
    (( $(date +%s) - call_start + 40 < ${LIMIT:-580} )) || { echo "no time for $b round $round"; continue; }
    run $b tree no-trace Parking-PT-208; tree_details $b-tree-no-trace-Parking-PT-208
    for x in json err; do mv "$out/json/$b-tree-no-trace-Parking-PT-208.$x" "$out/json/$b-$round.$x"; done
  done
done
grep -h "Parking-PT-208" /tmp/shared/mcc/oracles.tsv | cut -f1-3
pack_and_test ${LIMIT:-580} "${TESTS:-gpu::the_node_table_grows gpu::tree_storage_of_a_small gpu::a_full_node_table gpu::auto_storage \
  gpu::compact_tables gpu::spilling gpu::long_chains gpu::specs_match gpu::mcc_models;gpu::tree_storage_matches;gpu::a_ gpu::random \
  gpu::wide gpu::generated gpu::tables gpu::small_mcc gpu::device gpu::exported gpu::the_ gpu_partitioned:: gpu::compact_roots}"
