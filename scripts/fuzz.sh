#!/usr/bin/env bash
# Fuzzes one target of fuzz/ for a while, then minimises its corpus in place.
#
# Usage: scripts/fuzz.sh TARGET SECONDS [LIBFUZZER_FLAG...]
#   TARGET   net, aut, exp, pnml or options (fuzz/fuzz_targets/TARGET.rs)
#   SECONDS  how long libFuzzer runs (-max_total_time)
#   extra flags go to libFuzzer, e.g. -max_len=8192, or
#   `-fork=1 -ignore_crashes=1` to go on past a known crash (still one
#   fuzzing process at a time, run by a parent that restarts it)
#
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
# One fuzzing process, on one core: libFuzzer's default mode, which is what
# `-jobs=1 -workers=1` also amounts to, without a parent process and with
# the output here rather than in fuzz-0.log. The corpus is
# fuzz/corpus/TARGET, the dictionary fuzz/dict/TARGET.dict; a crash is
# saved under fuzz/artifacts/TARGET/ (see fuzz/README.md for what to do
# with it). Prints the executions count, the time and the corpus size after
# minimisation. Exit status: libFuzzer's (0 when nothing was found).
set -uo pipefail

if [ $# -lt 2 ]; then
    sed -n "2,12p" "$0" >&2
    exit 2
fi
target=$1
seconds=$2
shift 2
fuzz_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../fuzz" && pwd)"
cd "$fuzz_dir"
corpus="corpus/$target"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

start=$(date +%s)
cargo +nightly fuzz run "$target" "$corpus" -- \
    -dict="dict/$target.dict" -max_total_time="$seconds" -timeout=10 \
    -print_final_stats=1 "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
elapsed=$(($(date +%s) - start))

cargo +nightly fuzz cmin "$target" "$corpus" >/dev/null 2>&1 ||
    echo "fuzz.sh: cmin failed; the corpus is left as it was" >&2

# The final stats of the one process; in fork mode, the parent's total on
# its last status line (its children's stats are in their own logs).
if grep -q '^INFO: exiting:' "$log"; then
    executions=$(grep -o '^#[0-9]*: cov:' "$log" | tail -n 1 | tr -dc '0-9')
else
    executions=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -n 1 | grep -o '[0-9]*$')
fi
files=$(find "$corpus" -type f | wc -l)
bytes=$(find "$corpus" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
echo "fuzz.sh: $target: ${executions:-unknown} executions in ${elapsed} s" \
    "(fuzzing and start-up); corpus after cmin: $files files, $bytes bytes;" \
    "libFuzzer exit status $status"
exit "$status"
