#!/usr/bin/env bash
# Device call C (session 22), issue 13: the binaries of call B.
# 1. scc_bench with the built-in kernels on every graph, writing each as
#    raw CSR arrays, then SciPy's strong components on them (scipy 1.16.3
#    from its wheel, unpacked without its tests and repacked as
#    scipy-site.tar.xz, beside the machine's numpy), and ECL-SCC.
# 2. Resweeping variants as kernel trees (RESWEEP_AFTER_PASSES /
#    COLORING_IDLE_SWEEPS): s0i1 (0 / 1), s0i2 (0 / 2), s1i2 (1 / 2);
#    built-in is 1 / 4. Alternately on Peterson-PT-3, then once each on
#    the other graphs.
# Carried: .device/s22.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/graphs /tmp/py
exec > >(tee "$out/run-c.txt") 2>&1
d=.device/s22
nvidia-smi -L
for f in scc_bench; do xz -dc $d/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
start=$(date +%s)
tar -C /tmp/py -xJf $d/scipy-site.tar.xz && ls /tmp/py
echo "== ECL-SCC build"
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    $d/ecl/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp $d/ecl/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
bench() {  # variant, SCC_BENCH_ONLY, nets...
  local v=$1 only=$2; shift 2
  local dir=()
  [[ $v == built-in ]] || dir=(WARPCHECK_KERNEL_DIR=$PWD/$d/kv/$v)
  echo "== scc_bench $v ($only $(basename -a "$@" 2>/dev/null | tr '\n' ' '))"
  env "${dir[@]}" WARPCHECK_KERNEL_CACHE=/tmp/kc-$v RUST_LOG=warpcheck::scc::gpu=debug \
    SCC_BENCH_ONLY=$only SCC_BENCH_GPU_ONLY=1 timeout 150 /tmp/bin/scc_bench /tmp/graphs "$@" 2> /tmp/log.txt \
    | grep -E "Coloring|DIFFERENT|same as|panicked|^graph"
  grep -E " Coloring:|in place|panicked|error" /tmp/log.txt
  (echo "== log $v $only"; grep -v "generated edges" /tmp/log.txt) >> "$out/logs-c.txt"
}
ecl() {  # graphs...
  for g in "$@"; do for r in 1 2 3; do echo "== ECL-SCC $(basename $g) $(timeout 60 /tmp/ecl-scc $g | grep -E "compute time")"; done; done
}
scipy() {  # graphs' .offsets files...
  for f in "$@"; do
    local base=${f%.offsets}
    PYTHONPATH=/tmp/py timeout 120 python3 - "$base" <<'PY'
import sys, time
import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components
base = sys.argv[1]
indptr = np.fromfile(base + ".offsets", dtype=np.uint64).astype(np.int64)
indices = np.fromfile(base + ".targets", dtype=np.uint32).astype(np.int64)
n = len(indptr) - 1
m = csr_matrix((np.ones(len(indices), dtype=np.int8), indices, indptr), shape=(n, n))
for run in range(2):
    start = time.perf_counter()
    k, _ = connected_components(m, directed=True, connection="strong")
    print(f"== SciPy {base.split('/')[-1]} components {k} seconds {time.perf_counter() - start:.4f}", flush=True)
PY
  done
}
for g in grid random rmat; do bench built-in $g; scipy /tmp/graphs/$g*.offsets; ecl /tmp/graphs/$g*.egr; done
echo "elapsed $(( $(date +%s) - start )) s"
for n in Peterson-PT-3 Referendum-PT-0015; do bench built-in none $d/mcc/$n; scipy /tmp/graphs/$n.offsets; ecl /tmp/graphs/$n.egr; done
echo "elapsed $(( $(date +%s) - start )) s"
for v in s0i1 s0i2 s1i2 built-in s0i1 s0i2 s1i2; do bench $v none $d/mcc/Peterson-PT-3; done
echo "elapsed $(( $(date +%s) - start )) s"
for v in s0i1 s0i2 s1i2; do bench $v none $d/mcc/Referendum-PT-0015; done
echo "elapsed $(( $(date +%s) - start )) s"
for g in random rmat grid; do for v in s0i1 s0i2 s1i2; do bench $v $g; done; done
echo "elapsed $(( $(date +%s) - start )) s"
