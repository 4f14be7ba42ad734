#!/usr/bin/env bash
# Nets with wide vectors (lockstep_net.py) in a folder laid out like
# ../shared/mcc, with their oracles (G groups in lockstep of chains of L
# states: L^G states and G * (L - 1) * L^(G - 1) transitions), then run.sh
# on them.
#
# Usage: wide.sh BINARY WORK_DIR TIMEOUT OUT_DIR
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
binary="$1" work="$2" limit="$3" out="$4"
mkdir -p "$work" "$out"
printf 'model\tstates\ttransitions\tdeadlock\n' >"$work/oracles.tsv"
for spec in "3 13 64" "3 13 128" "3 13 256"; do
    read -r groups processes length <<<"$spec"
    name="lockstep-${groups}x${processes}x${length}"
    mkdir -p "$work/$name"
    python3 "$here/lockstep_net.py" "$groups" "$processes" "$length" >"$work/$name/model.net"
    states=$((length ** groups))
    transitions=$((groups * (length - 1) * length ** (groups - 1)))
    printf '%s\t%s\t%s\tyes\n' "$name" "$states" "$transitions" >>"$work/oracles.tsv"
done
"$here/run.sh" "$binary" "$work" 100000000 "$limit" "$out"
