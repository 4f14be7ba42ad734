#!/usr/bin/env bash
# SCC benchmark on a GPU machine: warpcheck's engines (examples/scc_bench.rs)
# side by side with ECL-SCC (built here with nvcc) and SciPy's strong
# components, on the same graphs, in one run.
#
# Build (on a machine with Rust):
#   cargo build --release --example scc_bench
# Peers:
#   ECL-SCC: a checkout of github.com/burtscher/ECL-SCC (its source/ folder)
#   SciPy:   importable by python3 (or wheels installed first)
# Usage: scripts/scc_bench.sh BENCH_BINARY ECL_SOURCE_DIR OUT_DIR [MCC_MODEL_DIR ...]
# Prints one table; OUT_DIR keeps the graphs, ours.tsv and table.tsv.
set -euo pipefail
bench=$1 ecl=$2 out=$3
shift 3
mkdir -p "$out/graphs"
# ECL-SCC prints clock rates that CUDA 13 no longer reports: those two
# fields of its banner become 0 in a copy; the algorithm is untouched.
mkdir -p "$out/ecl"
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    "$ecl/ECL-SCC_10.cu" > "$out/ecl/ECL-SCC_10.cu"
cp "$ecl/ECLgraph.h" "$out/ecl/"
nvcc -O3 -arch=sm_90 -o "$out/ecl-scc" "$out/ecl/ECL-SCC_10.cu"
"$bench" "$out/graphs" "$@" | tee "$out/ours.tsv"

scipy_time() {
    python3 - "$1" <<'PY'
import sys, time
import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components
base = sys.argv[1]
indptr = np.fromfile(base + ".offsets", dtype=np.uint64).astype(np.int64)
indices = np.fromfile(base + ".targets", dtype=np.uint32).astype(np.int64)
n = len(indptr) - 1
m = csr_matrix((np.ones(len(indices), dtype=np.int8), indices, indptr), shape=(n, n))
start = time.perf_counter()
k, _ = connected_components(m, directed=True, connection="strong")
print(f"{k}\t{time.perf_counter() - start:.4f}")
PY
}

printf 'graph\tstates\tedges\tcomponents\ttarjan_s\tscipy_s\tecl_scc_s\tcpu_all_s\tgpu_s\tgpu_fb_s\tvs_tarjan\tvs_scipy\tvs_ecl\tchecked\n' > "$out/table.tsv"
tail -n +2 "$out/ours.tsv" | while IFS=$'\t' read -r name states edges comps tarjan cpu1 cpu2 cpuall gpu fb cr fr explore checked; do
    base="$out/graphs/$name"
    read -r scipy_comps scipy_s < <(scipy_time "$base" || echo "- -")
    ecl_s=-
    ecl_comps=-
    if [[ -f "$base.egr" ]]; then
        log=$("$out/ecl-scc" "$base.egr" || true)
        ecl_s=$(sed -n 's/^compute time: \([0-9.]*\) s/\1/p' <<<"$log")
        ecl_comps=$(sed -n 's/^number of SCCs: \([0-9]*\)/\1/p' <<<"$log")
    fi
    [[ "$scipy_comps" == "$comps" || "$scipy_comps" == - ]] || checked="$checked; SciPy found $scipy_comps"
    [[ "$ecl_comps" == "$comps" || "$ecl_comps" == - ]] || checked="$checked; ECL-SCC found $ecl_comps"
    ratio() { python3 -c "import sys; a,b=sys.argv[1:]; print('-' if '-' in (a,b) or float(b)==0 else f'{float(a)/float(b):.1f}')" "$1" "$2"; }
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$states" "$edges" "$comps" \
        "$tarjan" "$scipy_s" "${ecl_s:--}" "$cpuall" "$gpu" "$fb" "$(ratio "$tarjan" "$gpu")" \
        "$(ratio "$scipy_s" "$gpu")" "$(ratio "${ecl_s:--}" "$gpu")" "$checked" >> "$out/table.tsv"
done
if command -v column >/dev/null; then column -t -s $'\t' "$out/table.tsv"; else cat "$out/table.tsv"; fi
