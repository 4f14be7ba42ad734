#!/usr/bin/env bash
# Oink's solvers and two warpcheck builds on the same games, interleaved: every round runs each contestant
# once, so load that comes and goes hits all of them alike.
#
# Usage: [RUNS=N] [TIMEOUT=S] [OINK_SOLVERS="zlk npp pp tl"] [WC_SOLVERS="pp auto"] \
#        interleaved.sh OINK OLD_WARPCHECK NEW_WARPCHECK GAME...
# An Oink solver written SOLVER@W runs with `-w W` (W workers of its parallel solvers); OLD_WARPCHECK `-`: none.
# Prints a tab-separated table, one row per game and contestant (`oink:SOLVER`, `old:SOLVER`, `new:SOLVER`):
#   game contestant wall_s solve_s agrees
# wall_s, solve_s: the least over RUNS (default 7) of the whole command's wall-clock time and of the tool's own
#   solve time (Oink's "total solving time", its preprocessing included; warpcheck's solve_seconds).
# agrees: an untimed first run writes the solution (warpcheck's with --verify); yes when its winners are
#   those of GAME's .sol or .sol.gz beside it on every vertex, no otherwise, FAIL:CODE when the run failed
#   or ran out of the TIMEOUT (default 30 s) every run has (such a contestant is not timed: `-`).
set -euo pipefail
oink=$1 old=$2 new=$3
shift 3
runs=${RUNS:-7}
limit=${TIMEOUT:-30}
read -r -a oink_solvers <<<"${OINK_SOLVERS:-zlk npp pp tl}"
read -r -a wc_solvers <<<"${WC_SOLVERS:-pp auto}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
winners() { zcat -f "$1" | awk '$1 != "paritysol" && NF >= 2 { sub(/;$/, "", $2); print $1, $2 }' | sort -n -k1,1; }
# command CONTESTANT GAME: the command line, into the array `c`.
command() {
    local tool=${1%%:*} solver=${1#*:}
    case $tool in
        oink) c=("$oink" "--${solver%@*}" "$2")
              [ "$solver" = "${solver#*@}" ] || c+=(-w "${solver#*@}") ;;
        old) c=("$old" --quiet --format json parity "$2" --engine cpu --solver "$solver") ;;
        new) c=("$new" --quiet --format json parity "$2" --engine cpu --solver "$solver") ;;
    esac
}
contestants=("${oink_solvers[@]/#/oink:}")
[ "$old" = - ] || contestants+=("${wc_solvers[@]/#/old:}")
contestants+=("${wc_solvers[@]/#/new:}")
printf 'game\tcontestant\twall_s\tsolve_s\tagrees\n'
for game in "$@"; do
    name=$(basename "$game"); name=${name%.gz}; name=${name%.pg}
    base=${game%.gz}; base=${base%.pg}
    winners "$(ls "$base".sol "$base".sol.gz 2>/dev/null | head -n 1)" >"$tmp/ref"
    declare -A agrees=() wall=() solve=()
    for who in "${contestants[@]}"; do
        command "$who" "$game"
        rm -f "$tmp/sol"
        if [ "${who%%:*}" = oink ]; then c+=("$tmp/sol"); else c+=(--verify --write-solution "$tmp/sol"); fi
        if timeout "$limit" "${c[@]}" >/dev/null 2>&1 && [ -s "$tmp/sol" ]; then
            if winners "$tmp/sol" | cmp -s - "$tmp/ref"; then agrees[$who]=yes; else agrees[$who]=no; fi
        else
            agrees[$who]=FAIL:$?
        fi
        wall[$who]=- solve[$who]=-
    done
    for _ in $(seq "$runs"); do
        for who in "${contestants[@]}"; do
            [ "${agrees[$who]}" != "${agrees[$who]#FAIL}" ] && continue
            command "$who" "$game"
            start=$EPOCHREALTIME
            timeout "$limit" "${c[@]}" >"$tmp/out" 2>&1 || continue
            end=$EPOCHREALTIME
            if [ "${who%%:*}" = oink ]; then
                s=$(awk '/total solving time:/ { print $(NF-1) }' "$tmp/out")
            else
                s=$(jq -r .solve_seconds "$tmp/out")
            fi
            wall[$who]=$(awk -v a="${wall[$who]}" -v s="$start" -v e="$end" \
                'BEGIN { w = e - s; printf "%.6f", (a == "-" || w < a + 0) ? w : a }')
            solve[$who]=$(awk -v a="${solve[$who]}" -v b="$s" 'BEGIN { print (a == "-" || b + 0 < a + 0) ? b : a }')
        done
    done
    for who in "${contestants[@]}"; do
        printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$who" "${wall[$who]}" "${solve[$who]}" "${agrees[$who]}"
    done
    unset agrees wall solve
done
