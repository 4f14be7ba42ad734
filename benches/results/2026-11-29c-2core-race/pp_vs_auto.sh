#!/usr/bin/env bash
# `--solver pp` against `--solver auto` of two warpcheck builds, side by side on the same games:
# every round runs each of old:pp, old:auto, new:pp, new:auto once, so that load that comes and goes
# hits all four alike.
#
# Usage: [RUNS=N] pp_vs_auto.sh OLD_WARPCHECK NEW_WARPCHECK GAME...
# Prints a tab-separated table, one row per game, build and solver:
#   game build solver least_solve_s median_solve_s least_wall_s runs_solve_s
# solve_s: warpcheck's own `solve_seconds` (`--format json`: validation, the solver, the race), parsing
# excluded; wall_s: the whole command. runs_solve_s: every run's solve_s, comma-separated, in order.
set -euo pipefail
old=$1 new=$2
shift 2
runs=${RUNS:-5}
contestants=(old:pp old:auto new:pp new:auto)
printf 'game\tbuild\tsolver\tleast_solve_s\tmedian_solve_s\tleast_wall_s\truns_solve_s\n'
for game in "$@"; do
    name=$(basename "$game"); name=${name%.gz}; name=${name%.pg}
    declare -A solve=() wall=()
    for _ in $(seq "$runs"); do
        for who in "${contestants[@]}"; do
            build=${who%%:*} solver=${who#*:}
            [ "$build" = old ] && bin=$old || bin=$new
            start=$EPOCHREALTIME
            out=$("$bin" --quiet --format json parity "$game" --engine cpu --solver "$solver")
            end=$EPOCHREALTIME
            solve[$who]+="$(jq -r .solve_seconds <<<"$out") "
            wall[$who]+="$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.6f", e - s }') "
        done
    done
    for who in "${contestants[@]}"; do
        read -r -a s <<<"${solve[$who]}"
        read -r -a w <<<"${wall[$who]}"
        sorted=($(printf '%s\n' "${s[@]}" | sort -g))
        least_wall=$(printf '%s\n' "${w[@]}" | sort -g | head -n 1)
        median=${sorted[$(( ${#sorted[@]} / 2 ))]}
        runs_list=$(IFS=,; echo "${s[*]}")
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "${who%%:*}" "${who#*:}" "${sorted[0]}" "$median" \
            "$least_wall" "$runs_list"
    done
    unset solve wall
done
