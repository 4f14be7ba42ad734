#!/usr/bin/env bash
# Device call C: `warpcheck mec` beside Storm (scripts/mec_bench.sh) with
# the binary of main at 1dcdf34 (before) and this build (after: colouring
# trims first in the MEC loop; trimming's chains go on in one thread), then
# wlan-6-0's phases, then scc_bench (after) beside ECL-SCC on the
# generated graphs (the R-MAT graph's long rows).
# Carried: .device/b28 (xz'd binaries), .device/b26 (ECL-SCC source),
# .device/wheels, .device/qvbs. One output file.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/profile-out}
mkdir -p "$out" /tmp/bin /tmp/graphs
exec > >(tee "$out/run-c.txt") 2>&1
nvidia-smi -L
for f in warpcheck warpcheck-before scc_bench; do xz -dc .device/b28/$f.xz > /tmp/bin/$f; chmod +x /tmp/bin/$f; done
for variant in before after before after; do
    bin=/tmp/bin/warpcheck; [[ $variant == before ]] && bin=/tmp/bin/warpcheck-before
    echo "== MEC $variant"
    timeout 200 scripts/mec_bench.sh $bin .device/wheels .device/qvbs /tmp/mecb \
        --engines gpu --repeats 3 wlan-6-0 consensus-6-2 csma-3-4 zeroconf-1000-8-false 2>/tmp/mec.err | grep -E "^\| [a-z]"
    tail -2 /tmp/mec.err
done
umb=$(ls /tmp/mecb/models/wlan-6-0*.umb 2>/dev/null | head -1)
if [[ -n $umb ]]; then
    for bin in /tmp/bin/warpcheck-before /tmp/bin/warpcheck; do
        echo "== $bin mec wlan-6-0, debug log"
        RUST_LOG=warpcheck::mec=debug,warpcheck::scc=debug $bin -q mec "$umb" --engine gpu 2>&1 | grep DEBUG
    done
fi
sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    .device/b26/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp .device/b26/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu
echo "== scc_bench after"
SCC_BENCH_GPU_ONLY=1 timeout 100 /tmp/bin/scc_bench /tmp/graphs 2>&1 | grep -E "Coloring|DIFFERENT|same as"
for graph in /tmp/graphs/*.egr; do
    for run in 1 2 3; do
        echo "== ECL-SCC $(basename "$graph")"; /tmp/ecl-scc "$graph" | grep -E "compute time"
    done
done
