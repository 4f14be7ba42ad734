#!/usr/bin/env bash
# Session 46's call Q, any one GPU: issue 13's CPU scaling on two quiet
# cores first (../2026-12-05l-prepared/run.sh, about 90 s, into
# $OUT/run.txt), then main's GPU tests that call P left: the split search
# on one GPU, livelock, SCC, MEC, prob and parity on the GPU, and the CLI's
# fallbacks, in the time left of LIMIT (default 585) seconds; SKIP (a
# space-separated list of test-name filters) leaves out what P already ran.
# Carry .device/nodes and set D=.device/nodes.
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
call_start=$(date +%s)
D=$D/fbscaling bash "$here/../2026-12-05l-prepared/run.sh"
log=run-q
source "$here/../2026-12-04g-h200-verify-and-jump/common.sh"
skips=()
for s in ${SKIP:-}; do skips+=(--skip "$s"); done
left=$(( ${LIMIT:-585} - ($(date +%s) - call_start) ))
echo "GPU tests get $left s"
WARPCHECK_BIN=/tmp/bin/final timeout $left /tmp/bin/mtests --include-ignored --test-threads=1 gpu \
  --skip gpu::tables_that_grow --skip gpu::compact_tables_that_grow --skip gpu::a_first_table --skip gpu::spilling \
  "${skips[@]}" > /tmp/tests.txt 2>&1
show_tests $? rest
echo "took $(( $(date +%s) - call_start )) s"; date -u
