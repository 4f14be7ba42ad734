#!/usr/bin/env bash
# Probabilistic model checking benchmark: `warpcheck prob` (GPU and CPU
# engines) against Storm 2.0 (stormpy, sparse engine, sound and default
# methods) on QVBS models built by stormpy, in one run (scripts/
# prob_bench.py does the work; see its doc for what is timed).
#
# Needs: python3 with venv and pip (no network: stormpy comes from
# WHEEL_DIR, see scripts/stormpy_env.sh), the warpcheck binary, and the
# QVBS PRISM files the instances name (zeroconf, cluster, herman.15,
# polling.18, csma.3-4, consensus.6, wlan.6, pacman.nm, egl).
#
# Usage: scripts/prob_bench.sh WARPCHECK WHEEL_DIR QVBS_DIR OUT_DIR [ARGS...]
#   ARGS go to prob_bench.py: instance names, --engines gpu,cpu,
#   --storm-timeout S (per Storm check, default 150). OUT_DIR
#   keeps the venv and table.md / rows.json. Exit 1 when a value differs.
set -euo pipefail
warpcheck=$(realpath "$1") wheels=$(realpath "$2") qvbs=$(realpath "$3") out=$4
shift 4
mkdir -p "$out"
out=$(realpath "$out")
# shellcheck source=scripts/stormpy_env.sh
source "$(dirname "$0")/stormpy_env.sh"
stormpy_python "$wheels" "$out"
"$python" "$(dirname "$0")/prob_bench.py" --qvbs "$qvbs" --work "$out/models" \
    --warpcheck "$warpcheck" --json "$out/rows.json" "$@" | tee "$out/table.md"
