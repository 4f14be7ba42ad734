#!/usr/bin/env bash
# Device call A (session 14): (1) tree storage's node look-up reading a
# bucket a 32-byte sector at a time, by plain loads (k-new) or through L2
# (k-ldcg), against the look-up before (k-old, an 8-byte __ldcg an entry),
# alternately, one binary, kernels swapped by WARPCHECK_KERNEL_DIR; the
# GPU tests of compact roots on k-new. (2) SCC colouring on Peterson-PT-3
# launch by launch under ncu, and scc_bench beside ECL-SCC, alternately.
# Carried: .device/s14 (xz'd binaries, kernel trees), .device/mcc-all,
# .device/f/mcc, .device/graphs, .device/a/ecl.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
here=benches/results/2026-11-29k-h200-trees-scc
mkdir -p "$out" /tmp/bin /tmp/graphs
exec > >(tee "$out/run-a.txt") 2>&1
nvidia-smi -L
for f in warpcheck tests scc_bench; do xz -dc .device/s14/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
cp /tmp/bin/tests .device/tests
echo "== trees: AutoFlight-PT-06a, Philosophers-PT-000020, no traces"
for rep in 1 2; do
  for v in old new ldcg; do
    echo "-- kernels $v"
    WARPCHECK_KERNEL_DIR=.device/s14/k-$v STORAGE_BENCH_KINDS=tree STORAGE_BENCH_TRACE=no-trace \
      timeout 120 bash scripts/storage_bench.sh /tmp/bin/warpcheck .device/mcc-all AutoFlight-PT-06a Philosophers-PT-000020 | tail -n +2
  done
done
echo "== trees: Parking-PT-208, no traces"
for v in old new; do
  echo "-- kernels $v"
  WARPCHECK_KERNEL_DIR=.device/s14/k-$v STORAGE_BENCH_KINDS=tree STORAGE_BENCH_TRACE=no-trace \
    timeout 90 bash scripts/storage_bench.sh /tmp/bin/warpcheck .device/mcc-all Parking-PT-208 | tail -n +2
done
echo "== GPU tests on k-new (embedded)"
WARPCHECK_MCC=.device/f/mcc WARPCHECK_BIN=/tmp/bin/warpcheck timeout 150 bash scripts/gpu_test.sh \
  gpu::compact_roots_match gpu::auto_storage 2>&1 | grep -E "^test |test result|panicked|assert" | head -20
echo "== SCC"
ecl=.device/a/ecl
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    $ecl/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp $ecl/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
for rep in 1 2 3; do
  SCC_BENCH_ONLY=random SCC_BENCH_GPU_ONLY=1 timeout 100 /tmp/bin/scc_bench /tmp/graphs .device/f/mcc/Peterson-PT-3 2>&1 \
    | grep -E "Coloring|DIFFERENT|same as|in place"
  for g in /tmp/graphs/*.egr; do echo "== ECL-SCC $(basename $g) $(/tmp/ecl-scc $g | grep -E "compute time")"; done
done
ls /tmp/graphs
echo "== ncu: scc_bench colouring kernels, Peterson-PT-3"
SCC_BENCH_ONLY=none SCC_BENCH_GPU_ONLY=1 timeout 150 ncu --clock-control none --metrics gpu__time_duration.sum \
    -k regex:"signatures|summary|trim|compact" --launch-count 400 \
    --csv --log-file /tmp/ncu-ours-p.csv /tmp/bin/scc_bench /tmp/graphs .device/f/mcc/Peterson-PT-3 > /dev/null 2>&1
python3 benches/results/2026-11-25b-h100-profile/ncu_kernels.py /tmp/ncu-ours-p.csv --first 400
cp /tmp/ncu-*.csv "$out/"
