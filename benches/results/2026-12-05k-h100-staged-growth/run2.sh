#!/usr/bin/env bash
# Session 45's call N, after call M (run.sh): the growth GPU tests of
# `bounce` (the staged table crosses the bus through a 128 MiB page-locked
# buffer, threads copy it to and from ordinary memory), then Parking-PT-208
# under tree storage without traces and --memory 70G, as an H100's
# default, with `bounce`, main (e3343127), `pinned` (the whole staged
# table page-locked, call M's best) and `jump16` (bounce whose jump table
# keeps 1/16 of its slots in each queue, not 1/4), each while LIMIT
# (seconds from the start, default 320) leaves a minute for it.
# Carry .device/growth and set D=.device/growth.
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
log=run2
source "$here/../2026-12-04g-h200-verify-and-jump/common.sh"
for b in final pinned bounce jump16; do
  printf '#!/bin/sh\nexec /tmp/bin/%s "$@" --memory 70G\n' $b > /tmp/bin/${b}70
  chmod +x /tmp/bin/${b}70
done
growths() { grep -h "grown to\|staged through" "$out/json/$1.err" | sed 's/^.*search: /    /'; }
echo "growth tests of bounce"
WARPCHECK_BIN=/tmp/bin/bounce timeout 150 /tmp/bin/btests --include-ignored --test-threads=1 \
  gpu::tables_that_grow gpu::compact_tables_that_grow gpu::spilling > /tmp/tests.txt 2>&1
show_tests $? bounce
printf 'build\tstorage\ttraces\tnet\tstates\tsearch_s\tstates/s\tbytes/state\tmemory\texit\n'
for b in bounce70 final70 jump1670 pinned70; do
  (( $(date +%s) - start + 60 < ${LIMIT:-320} )) || { echo "no time for $b"; continue; }
  run $b tree no-trace Parking-PT-208; growths $b-tree-no-trace-Parking-PT-208
done
grep -h "Parking-PT-208" /tmp/shared/mcc/oracles.tsv | cut -f1-4
tar -C "$out" -cJf "$out/json-$log.tar.xz" json && rm -rf "$out/json"
echo "took $(( $(date +%s) - start )) s"; date -u
