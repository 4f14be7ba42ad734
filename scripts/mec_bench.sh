#!/usr/bin/env bash
# MEC benchmark: `warpcheck mec` (GPU, CPU and reference engines) against
# Storm's MEC decomposition (stormpy 2.0), on MDPs of 10^6..10^7 states
# built by stormpy from QVBS PRISM files, in one run (scripts/mec_bench.py
# does the work; see its doc for what is timed).
#
# Needs: python3 with venv and pip (no network: stormpy comes from
# WHEEL_DIR, see scripts/stormpy_env.sh), the warpcheck binary, and the
# QVBS .prism files the instances name (consensus.6, csma.3-4, zeroconf,
# wlan.6, firewire.true, eajs.6).
#
# Usage: scripts/mec_bench.sh WARPCHECK WHEEL_DIR QVBS_DIR OUT_DIR [ARGS...]
#   ARGS go to mec_bench.py: instance names, --engines gpu,cpu,reference,
#   --repeats N. OUT_DIR keeps the venv, the .umb and .mec files, and
#   table.md / rows.json. Exit 1 when an engine's MECs differ from Storm's.
set -euo pipefail
warpcheck=$(realpath "$1") wheels=$(realpath "$2") qvbs=$(realpath "$3") out=$4
shift 4
mkdir -p "$out"
out=$(realpath "$out")
# shellcheck source=scripts/stormpy_env.sh
source "$(dirname "$0")/stormpy_env.sh"
stormpy_python "$wheels" "$out"
"$python" "$(dirname "$0")/mec_bench.py" --qvbs "$qvbs" --work "$out/models" \
    --warpcheck "$warpcheck" --json "$out/rows.json" "$@" | tee "$out/table.md"
