# Sourced by the Storm benchmarks: `stormpy_python WHEEL_DIR OUT_DIR` sets
# `python` to an interpreter that imports stormpy, installed without
# network from WHEEL_DIR (stormpy's wheel and its dependencies'; a wheel
# too large to carry may come as NAME.whl.tar.xz, the wheel's files as an
# xz-compressed tar, zipped back into NAME.whl here; stormpy's, trimmed by
# scripts/trim_stormpy_wheel.py first, fits beside the repository) into a virtual
# environment under OUT_DIR, or a target folder where python3 has no venv.
stormpy_python() {
    local wheels=$1 out=$2
    mkdir -p "$out/wheels"
    cp "$wheels"/*.whl "$out/wheels/" 2>/dev/null || true
    for packed in "$wheels"/*.whl.tar.xz; do
        [[ -e "$packed" ]] || continue
        local name
        name=$(basename "$packed" .tar.xz)
        if [[ ! -f "$out/wheels/$name" ]]; then
            rm -rf "$out/unpacked"
            mkdir -p "$out/unpacked"
            tar -xJf "$packed" -C "$out/unpacked"
            (cd "$out/unpacked" && python3 -m zipfile -c "$out/wheels/$name" .)
            rm -rf "$out/unpacked"
        fi
    done
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
}
