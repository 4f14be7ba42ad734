#!/usr/bin/env bash
# Session 45's call M: a table staged through host memory (issue 17).
# On an H100 (80 GB) the default --memory is about 70 GiB, and
# Parking-PT-208 under tree storage fills its jump table (4.48e9 slots) at
# 4.0e9 states: the growth staged through host memory took 34.7 s of a
# 51.5 s search (../2026-12-05j-h100-pairs-and-j/). Here, with --memory
# 70G on any card: main (e3343127), `oneround` (no locate pass, one upload
# of the old table without traces) and `pinned` (that, with the old table in
# page-locked host memory), then the growth GPU tests of `pinned`, then
# Parking with traces (main and pinned) while time is left.
# Carry .device/growth and set D=.device/growth.
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
log=run
source "$here/../2026-12-04g-h200-verify-and-jump/common.sh"
for b in final oneround pinned; do
  printf '#!/bin/sh\nexec /tmp/bin/%s "$@" --memory 70G\n' $b > /tmp/bin/${b}70
  chmod +x /tmp/bin/${b}70
done
growths() { grep -h "grown to\|staged through" "$out/json/$1.err" | sed 's/^.*search: /    /'; }
printf 'build\tstorage\ttraces\tnet\tstates\tsearch_s\tstates/s\tbytes/state\tmemory\texit\n'
for b in final70 oneround70 pinned70; do
  run $b tree no-trace Parking-PT-208; growths $b-tree-no-trace-Parking-PT-208
done
echo "at $(( $(date +%s) - start )) s: growth tests of pinned"
WARPCHECK_BIN=/tmp/bin/pinned timeout 200 /tmp/bin/ptests --include-ignored --test-threads=1 \
  gpu::tables_that_grow gpu::compact_tables_that_grow gpu::a_first_table gpu::spilling > /tmp/tests.txt 2>&1
echo "tests rc $?"
grep -E "^test |test result" /tmp/tests.txt
grep -E -A12 "^---- |panicked" /tmp/tests.txt | head -40
cp /tmp/tests.txt "$out/tests-pinned.txt"
for b in pinned70 final70; do
  (( $(date +%s) - start < 440 )) || { echo "no time for $b with traces"; continue; }
  run $b tree traces Parking-PT-208; growths $b-tree-traces-Parking-PT-208
done
grep -h "Parking-PT-208" /tmp/shared/mcc/oracles.tsv | cut -f1-4
tar -C "$out" -cJf "$out/json-$log.tar.xz" json && rm -rf "$out/json"
echo "took $(( $(date +%s) - start )) s"; date -u
