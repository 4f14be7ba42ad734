#!/usr/bin/env bash
# Session 46's call P, one H200 (run on an H100 it says so in its first
# line): Parking-PT-208 under tree storage without traces (issue 17 asks
# 3e8 states/s, 15.225 s; main took 15.28-15.33 s) with main, a node table
# capped at 2^24 and 2^27 entries (main's holds 2^32 - 16, of which the net
# uses 3.0e6: every node look-up misses L2), and 5 or 6 search blocks an SM;
# then main's explorer GPU tests, from the ones not run since session 43,
# in the time left of LIMIT (default 585) seconds.
# Carry .device/nodes and set D=.device/nodes.
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
log=run-p
source "$here/../2026-12-04g-h200-verify-and-jump/common.sh"
cp /tmp/bin/final /tmp/bin/jump
# On an H100 (about 70 GiB) the table would grow through host memory, which
# takes 20-35 s (../2026-12-05k-h100-staged-growth/): every CLI then starts
# with the table that session 45 gave Parking-PT-208 there.
if nvidia-smi -L | grep -q H100; then
  for b in final jump nodes24 nodes27; do
    mv /tmp/bin/$b /tmp/bin/$b.real
    printf '#!/bin/sh\nexec /tmp/bin/%s.real "$@" --initial-table 51G\n' $b > /tmp/bin/$b
    chmod +x /tmp/bin/$b
  done
  echo "H100: every CLI runs with --initial-table 51G"
fi
details() { python3 -c "import json,sys; r=json.load(sys.stdin); d=dict(r['engine_details']); print('   ', r['engine'].split(';')[1]); print('   ', d.get('hash table')); print('   ', d.get('tree nodes'))" < "$out/json/$1.json" 2>/dev/null; }
printf 'build\tstorage\ttraces\tnet\tstates\tsearch_s\tstates/s\tbytes/state\tmemory\texit\n'
for b in main min5 min6 nodes24 main min5 min6; do
  (( $(date +%s) - start + 40 < ${LIMIT:-585} )) || { echo "no time for $b"; continue; }
  run $b tree no-trace Parking-PT-208; details $b-tree-no-trace-Parking-PT-208
done
grep -h "Parking-PT-208" /tmp/shared/mcc/oracles.tsv | cut -f1-4
tar -C "$out" -cJf "$out/json-$log.tar.xz" json && rm -rf "$out/json"
left=$(( ${LIMIT:-585} - ($(date +%s) - start) ))
cli=/tmp/bin/final; [[ -x /tmp/bin/final.real ]] && cli=/tmp/bin/final.real
echo "at $(( $(date +%s) - start )) s: explorer tests get $left s"
WARPCHECK_BIN=$cli timeout $left /tmp/bin/mtests --include-ignored --test-threads=1 gpu:: \
  --skip gpu::tables_that_grow --skip gpu::compact_tables_that_grow --skip gpu::a_first_table --skip gpu::spilling \
  > /tmp/tests.txt 2>&1
show_tests $? explorer
echo "took $(( $(date +%s) - start )) s"; date -u
