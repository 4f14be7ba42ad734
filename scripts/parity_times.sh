#!/usr/bin/env bash
# Solve times of every parity solver on every game of a folder, beside the
# times Oink reported for its solvers (oracles.tsv of that folder).
#
# Usage: [RUNS=N] scripts/parity_times.sh [GAME_DIR] [TIMEOUT_SECONDS] [SOLVER ...]
#   GAME_DIR  default ../shared/parity (PGSolver games and oracles.tsv)
#   TIMEOUT   per run, default 30
#   SOLVER    default: auto zielonka fpi spm (and any others given)
# Build first: cargo build --release (or name a binary in $WARPCHECK). Prints a tab-separated table, one
# row per game (ordered by vertices): game, vertices, edges, then the
# solve time in seconds of each solver (`timeout` when it ran out, `FAIL`
# when it did not solve or its strategy failed --verify), then Oink's
# zlk/npp/fpi/spm times from oracles.tsv. Every run uses --verify, which
# is not counted in the time. With RUNS=N (default 1), each time is the
# least of N runs (a run that times out or fails is not repeated).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-../shared/parity}
limit=${2:-30}
shift $(($# < 2 ? $# : 2))
solvers=("$@")
[ ${#solvers[@]} -gt 0 ] || solvers=(auto zielonka fpi spm)
bin=${WARPCHECK:-target/release/warpcheck}
[ -x "$bin" ] || { echo "build first: cargo build --release" >&2; exit 2; }

header="game\tvertices\tedges"
for s in "${solvers[@]}"; do header+="\t$s"; done
printf '%b\toink_zlk\toink_npp\toink_fpi\toink_spm\n' "$header"
tail -n +2 "$dir/oracles.tsv" | sort -t$'\t' -k2,2n | while IFS=$'\t' read -r game vertices edges _ _ _ _ _ zlk npp fpi spm _; do
    file=$dir/$game.pg
    [ -f "$file" ] || file=$file.gz
    [ -f "$file" ] || continue
    row="$game\t$vertices\t$edges"
    for s in "${solvers[@]}"; do
        best=
        for _ in $(seq "${RUNS:-1}"); do
            if out=$(timeout "$((limit + 5))" "$bin" --quiet --format json parity "$file" \
                --solver "$s" --verify --timeout "$limit" 2>/dev/null); then
                t=$(jq -r '.solve_seconds * 10000 | round / 10000' <<<"$out")
                best=$(jq -n --arg a "${best:-$t}" --arg b "$t" '[$a, $b] | map(tonumber) | min')
            elif [ "$(jq -r '.exit_code // empty' <<<"$out" 2>/dev/null)" = 3 ]; then
                best=timeout
                break
            else
                best=FAIL
                break
            fi
        done
        row+="\t$best"
    done
    printf '%b\t%s\t%s\t%s\t%s\n' "$row" "$zlk" "$npp" "$fpi" "$spm"
done
