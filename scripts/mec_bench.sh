#!/usr/bin/env bash
# MEC benchmark: `warpcheck mec` (GPU, CPU and reference engines) against
# Storm's MEC decomposition (stormpy 2.0), on MDPs of 10^6..10^7 states
# built by stormpy from QVBS PRISM files, in one run (scripts/mec_bench.py
# does the work; see its doc for what is timed).
#
# Needs: python3 with venv and pip (no network: stormpy comes from
# WHEEL_DIR), the warpcheck binary, and the QVBS .prism files the
# instances name (consensus.6, csma.3-4, zeroconf, wlan.6, firewire.true,
# eajs.6). WHEEL_DIR holds stormpy's wheel and its dependencies'; a wheel
# too large to carry may come as NAME.whl.tar.xz, the wheel's files as an
# xz-compressed tar, which is zipped back into NAME.whl here.
#
# Usage: scripts/mec_bench.sh WARPCHECK WHEEL_DIR QVBS_DIR OUT_DIR [ARGS...]
#   ARGS go to mec_bench.py: instance names, --engines gpu,cpu,reference,
#   --repeats N. OUT_DIR keeps the venv, the .umb and .mec files, and
#   table.md / rows.json. Exit 1 when an engine's MECs differ from Storm's.
set -euo pipefail
warpcheck=$(realpath "$1") wheels=$(realpath "$2") qvbs=$(realpath "$3") out=$4
shift 4
mkdir -p "$out/wheels"
out=$(realpath "$out")
cp "$wheels"/*.whl "$out/wheels/" 2>/dev/null || true
for packed in "$wheels"/*.whl.tar.xz; do
    [[ -e "$packed" ]] || continue
    name=$(basename "$packed" .tar.xz)
    if [[ ! -f "$out/wheels/$name" ]]; then
        rm -rf "$out/unpacked"
        mkdir -p "$out/unpacked"
        tar -xJf "$packed" -C "$out/unpacked"
        (cd "$out/unpacked" && python3 -m zipfile -c "$out/wheels/$name" .)
        rm -rf "$out/unpacked"
    fi
done
# A virtual environment where python3 has venv, else a target folder.
if [[ -x "$out/venv/bin/python" ]] || python3 -m venv "$out/venv" 2>/dev/null; then
    python=$out/venv/bin/python
else
    python=python3
    export PYTHONPATH="$out/site${PYTHONPATH:+:$PYTHONPATH}"
fi
if ! "$python" -c 'import stormpy' 2>/dev/null; then
    if [[ $python == python3 ]]; then
        python3 -m pip install --quiet --no-index --find-links "$out/wheels" --target "$out/site" stormpy
    else
        "$python" -m pip install --quiet --no-index --find-links "$out/wheels" stormpy
    fi
fi
"$python" "$(dirname "$0")/mec_bench.py" --qvbs "$qvbs" --work "$out/models" \
    --warpcheck "$warpcheck" --json "$out/rows.json" "$@" | tee "$out/table.md"
