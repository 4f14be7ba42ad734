#!/usr/bin/env bash
# Oink's parity solvers and warpcheck's CPU parity solvers side by side, on the same machine in the same run.
#
# Usage: [RUNS=N] [OINK=path] [WARPCHECK=path] scripts/oink_side_by_side.sh [GAME_DIR] [TIMEOUT_SECONDS]
#   GAME_DIR  default ../shared/parity: every GAME.pg and GAME.pg.gz directly in it (PGSolver format)
#   TIMEOUT   wall-clock limit of every run in seconds (default 30), the same for both tools (`timeout`)
#   RUNS      timed runs per solver and game (default 3); the table keeps the least
#   OINK      the oink binary (default ../oink/oink; scripts/oink_build.sh builds one)
#   WARPCHECK the warpcheck binary (default target/release/warpcheck: cargo build --release)
#   OINK_SOLVERS  default "zlk npp pp fpi tl spm" (tl is Oink's default solver); a solver may carry Oink
#                 options after a colon, e.g. "zlk:-w:2" (colons become spaces)
#   WC_SOLVERS    default "auto zielonka tangle fpi spm" (always --engine cpu, default --threads: all cores)
#
# Prints a tab-separated table on stdout, one row per game and solver:
#   game tool solver status wall_s solve_s parse_s won_by_even won_by_odd agrees
# status: ok, timeout (the run passed TIMEOUT), or FAIL:<exit code>.
# wall_s: the least over RUNS of the wall-clock time of the whole command (start, parsing, preprocessing,
#   solving, exit), measured here around the process, the same way for both tools.
# solve_s: the least over RUNS of the tool's own solve time, without parsing: Oink's "total solving time"
#   (its preprocessing + the solver), warpcheck's solve_seconds.
# parse_s: the least over RUNS of the tool's own parse time: Oink's "parsing took", warpcheck's load_seconds.
# Before the timed runs each solver solves the game once more, untimed, writing its solution (Oink's output
# file; warpcheck's --write-solution): won_by_even/won_by_odd count its winners, and agrees says whether
# the winner of every vertex is that of GAME.sol[.gz] in GAME_DIR (yes/no), or, without a .sol file, that
# of the first solver that finished on the game (yes/no/ref when it is that one). Timed runs write no
# solution and verify nothing. A solver that runs out in the untimed run is not timed.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-../shared/parity}
limit=${2:-30}
runs=${RUNS:-3}
oink=${OINK:-../oink/oink}
bin=${WARPCHECK:-target/release/warpcheck}
read -r -a oink_solvers <<<"${OINK_SOLVERS:-zlk npp pp fpi tl spm}"
read -r -a wc_solvers <<<"${WC_SOLVERS:-auto zielonka tangle fpi spm}"
[ -x "$bin" ] || { echo "build first: cargo build --release (or name a binary in \$WARPCHECK)" >&2; exit 2; }
[ -x "$oink" ] || { echo "no Oink at $oink: scripts/oink_build.sh DIR, then OINK=DIR/oink" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# winners FILE: "id winner" per vertex, ids ascending, from a solution in either tool's format
# (an optional `paritysol N;` header, `ID WINNER [STRATEGY];` lines), plain or gzip-compressed.
winners() {
    zcat -f "$1" | awk '$1 != "paritysol" && NF >= 2 { sub(/;$/, "", $2); print $1, $2 }' | sort -n -k1,1
}

# cmd TOOL SOLVER GAME [SOLUTION]: the command line (into the array `c`) that solves GAME with SOLVER of TOOL,
# writing its solution to SOLUTION when given.
cmd() {
    local tool=$1 solver=$2 game=$3 sol=${4:-}
    if [ "$tool" = oink ]; then
        local name=${solver%%:*} extra=()
        [ "$name" = "$solver" ] || IFS=: read -r -a extra <<<"${solver#*:}"
        c=("$oink" "--$name" "${extra[@]}" "$game")
        [ -z "$sol" ] || c+=("$sol")
    else
        c=("$bin" --quiet --format json parity "$game" --engine cpu --solver "$solver")
        [ -z "$sol" ] || c+=(--write-solution "$sol")
    fi
}

# tool_times TOOL OUTPUT: "solve_s parse_s" that the tool reported in OUTPUT.
tool_times() {
    if [ "$1" = oink ]; then
        awk '/total solving time:/ { s = $(NF-1) } /parsing took/ { p = $(NF-1) } END { print s, p }' "$2"
    else
        jq -r '"\(.solve_seconds) \(.load_seconds)"' "$2"
    fi
}

printf 'game\ttool\tsolver\tstatus\twall_s\tsolve_s\tparse_s\twon_by_even\twon_by_odd\tagrees\n'
shopt -s nullglob
for game in "$dir"/*.pg "$dir"/*.pg.gz; do
    name=$(basename "$game")
    name=${name%.gz}
    name=${name%.pg}
    ref=
    for f in "$dir/$name.sol" "$dir/$name.sol.gz"; do [ -f "$f" ] && winners "$f" >"$tmp/ref" && ref=$tmp/ref; done
    first=
    for entry in "${oink_solvers[@]/#/oink/}" "${wc_solvers[@]/#/warpcheck/}"; do
        tool=${entry%%/*}
        solver=${entry#*/}
        wall=- solve=- parse=- even=- odd=- agrees=-
        cmd "$tool" "$solver" "$game" "$tmp/sol"
        rm -f "$tmp/sol"
        if timeout "$limit" "${c[@]}" >"$tmp/out" 2>"$tmp/err"; then
            status=ok
        else
            rc=$?
            status=FAIL:$rc
            [ "$rc" != 124 ] || status=timeout
        fi
        if [ "$status" = ok ] && [ -s "$tmp/sol" ]; then
            winners "$tmp/sol" >"$tmp/win"
            even=$(awk '$2 == 0' "$tmp/win" | wc -l)
            odd=$(awk '$2 == 1' "$tmp/win" | wc -l)
            if [ -n "$ref" ]; then
                if cmp -s "$ref" "$tmp/win"; then agrees=yes; else agrees=no; fi
            elif [ -z "$first" ]; then
                cp "$tmp/win" "$tmp/first"
                first=$entry
                agrees=ref
            elif cmp -s "$tmp/first" "$tmp/win"; then agrees=yes; else agrees=no; fi
        elif [ "$status" = ok ]; then
            status=FAIL:nosolution
        fi
        if [ "$status" = ok ]; then
            cmd "$tool" "$solver" "$game"
            for _ in $(seq "$runs"); do
                start=$EPOCHREALTIME
                if ! timeout "$limit" "${c[@]}" >"$tmp/out" 2>"$tmp/err"; then
                    rc=$?
                    status=FAIL:$rc
                    [ "$rc" != 124 ] || status=timeout
                    wall=- solve=- parse=-
                    break
                fi
                end=$EPOCHREALTIME
                read -r s p < <(tool_times "$tool" "$tmp/out")
                w=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f", b - a }')
                wall=$(awk -v a="$wall" -v b="$w" 'BEGIN { print (a == "-" || b + 0 < a + 0) ? b : a }')
                solve=$(awk -v a="$solve" -v b="$s" 'BEGIN { print (a == "-" || b + 0 < a + 0) ? b : a }')
                parse=$(awk -v a="$parse" -v b="$p" 'BEGIN { print (a == "-" || b + 0 < a + 0) ? b : a }')
            done
        fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$tool" "$solver" "$status" "$wall" "$solve" \
            "$parse" "$even" "$odd" "$agrees"
    done
done
