#!/usr/bin/env bash
# `--solver auto` of two warpcheck builds, interleaved run by run on every game of a folder.
#
# Usage: auto_before_after.sh BEFORE_BINARY AFTER_BINARY [GAME_DIR] [RUNS]
# Prints a tab-separated table: game, then for each build the least over RUNS of the whole command's
# wall-clock seconds and of its solve_seconds, and the solver that finished (the last run's).
set -euo pipefail
before=$1
after=$2
dir=${3:-../shared/parity}
runs=${4:-3}
# One run: wall seconds, solve seconds, solver.
run() {
    local start end json
    start=$(date +%s.%N)
    json=$(timeout 30 "$1" --format json parity "$2" --engine cpu --timeout 29 2>/dev/null || true)
    end=$(date +%s.%N)
    python3 -c 'import json, sys
d = json.loads(sys.argv[3] or "{}")
print(float(sys.argv[2]) - float(sys.argv[1]), d.get("solve_seconds", "nan"), d.get("solver", "-"))' "$start" "$end" "$json"
}
printf 'game\tbefore_wall_s\tbefore_solve_s\tbefore_solver\tafter_wall_s\tafter_solve_s\tafter_solver\n'
for game in "$dir"/*.pg "$dir"/*.pg.gz; do
    [ -e "$game" ] || continue
    name=$(basename "$game"); name=${name%.gz}; name=${name%.pg}
    b=(); a=()
    for _ in $(seq "$runs"); do
        b+=("$(run "$before" "$game")")
        a+=("$(run "$after" "$game")")
    done
    python3 - "$name" "${b[@]}" "${a[@]}" <<'PY'
import sys
name, rows = sys.argv[1], [r.split() for r in sys.argv[2:]]
half = len(rows) // 2
def least(rs):
    wall = min(float(r[0]) for r in rs)
    solves = [float(r[1]) for r in rs if r[1] != "nan"]
    return f"{wall:.6f}", (f"{min(solves):.6f}" if solves else "timeout"), rs[-1][2]
print("\t".join([name, *least(rows[:half]), *least(rows[half:])]))
PY
done
