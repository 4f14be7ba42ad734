#!/usr/bin/env bash
# Session 45's call O (prepared): main's whole GPU test suite, which no
# device call has run since before eebb9252 (the explorer tests from
# gpu::compact_roots_match_the_reference on were cut off by time limits in
# sessions 43 and 45). Every test whose name holds "gpu", one at a time,
# within LIMIT seconds (default 560). `main.xz` and `mtests.xz` in D are
# main's CLI and integration tests (see BUILD).
# Carry .device/growth and set D=.device/growth.
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
log=run3
source "$here/../2026-12-04g-h200-verify-and-jump/common.sh"
left=$(( ${LIMIT:-560} - ($(date +%s) - start) ))
WARPCHECK_BIN=/tmp/bin/main timeout $left /tmp/bin/mtests --include-ignored --test-threads=1 gpu > /tmp/tests.txt 2>&1
show_tests $? main
echo "took $(( $(date +%s) - start )) s"; date -u
