#!/usr/bin/env bash
# Interleaved timing of two warpcheck binaries on the CPU engine.
# Usage: bench.sh BEFORE AFTER ROUNDS MCC_DIR > runs.tsv
# Each round runs every (net, mode) with both binaries, in the order
# before-after on odd rounds and after-before on even ones. A row: net,
# mode, binary, round, search seconds (as the engine reports it), memory
# MiB, bytes a state, wall seconds, peak resident KiB, user and system
# processor seconds (/usr/bin/time; runs-1.tsv has no processor seconds).
set -euo pipefail
before=$1 after=$2 rounds=$3 mcc=$4
nets=(Peterson-PT-3 FlexibleBarrier-PT-06a ParamProductionCell-PT-0
      ResAllocation-PT-R003C010 Referendum-PT-0015)
extra() { [ "$1" = Referendum-PT-0015 ] && echo "--max-states 3000000" || true; }
run() { # binary-name binary net mode round
    local mode_args=()
    [ "$4" = plain ] && mode_args=(--no-trace)
    local out
    out=$( { /usr/bin/time -f "TIME %e %M %U %S" "$2" check "$mcc/$3/model.pnml" --engine cpu \
        "${mode_args[@]}" $(extra "$3"); } 2>&1 ) || true  # a search stopped at --max-states exits 3
    local search mem bps wall rss user sys
    search=$(sed -n 's/.*search \([0-9.]*\) s.*/\1/p' <<<"$out")
    mem=$(sed -n 's/^memory: \([0-9.]*\) MiB.*/\1/p' <<<"$out")
    bps=$(sed -n 's/.*, \([0-9.]*\) bytes a state.*/\1/p' <<<"$out")
    read -r _ wall rss user sys < <(grep '^TIME' <<<"$out")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$3" "$4" "$1" "$5" "$search" \
        "$mem" "$bps" "$wall" "$rss" "$user" "$sys"
}
printf 'net\tmode\tbinary\tround\tsearch_s\tmemory_mib\tbytes_a_state\twall_s\tpeak_kib\tuser_s\tsys_s\n'
for round in $(seq 1 "$rounds"); do
    for net in "${nets[@]}"; do
        for mode in plain traces; do
            if (( round % 2 )); then
                run before "$before" "$net" "$mode" "$round"
                run after "$after" "$net" "$mode" "$round"
            else
                run after "$after" "$net" "$mode" "$round"
                run before "$before" "$net" "$mode" "$round"
            fi
        done
    done
done
