#!/usr/bin/env bash
# `--solver auto` (with --verify) on every game of a folder that has a solution beside it (GAME.sol or
# GAME.sol.gz): do its winners equal the solution's?
#
# Usage: [TIMEOUT=S] check_auto.sh WARPCHECK DIR
# Prints a tab-separated table, one row per game:
#   game solver solve_s agrees
# solver: the solver of the race that finished first; agrees: yes when the winners equal the .sol's on
# every vertex, no otherwise, FAIL:CODE when the run failed or ran out of TIMEOUT (default 60 s).
set -euo pipefail
bin=$1 dir=$2
limit=${TIMEOUT:-60}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
winners() { zcat -f "$1" | awk '$1 != "paritysol" && NF >= 2 { sub(/;$/, "", $2); print $1, $2 }' | sort -n -k1,1; }
printf 'game\tsolver\tsolve_s\tagrees\n'
for game in "$dir"/*.pg "$dir"/*.pg.gz; do
    base=${game%.gz}; base=${base%.pg}
    reference=$(ls "$base".sol "$base".sol.gz 2>/dev/null | head -n 1) || true
    [ -n "$reference" ] || continue
    rm -f "$tmp/sol"
    if timeout "$limit" "$bin" --quiet --format json parity "$game" --engine cpu --solver auto \
        --verify --write-solution "$tmp/sol" >"$tmp/out" 2>/dev/null; then
        solver=$(jq -r .solver "$tmp/out") solve=$(jq -r .solve_seconds "$tmp/out")
        if winners "$tmp/sol" | cmp -s - <(winners "$reference"); then agrees=yes; else agrees=no; fi
    else
        code=$?
        solver=- solve=- agrees=FAIL:$code
    fi
    printf '%s\t%s\t%s\t%s\n' "$(basename "$base")" "$solver" "$solve" "$agrees"
done
