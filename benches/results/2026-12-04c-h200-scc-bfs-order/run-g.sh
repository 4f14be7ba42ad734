#!/usr/bin/env bash
# Call G (session 37), issue 13: where renumbering's time goes (debug
# timing of its steps, a device synchronisation after each) on
# Peterson-PT-3, Referendum-PT-0015 and the random graph.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/graphs /tmp/shared
exec > >(tee "$out/run-g.txt") 2>&1
d=.device/s37
nvidia-smi -L; cat $d/BUILD
xz -dc $d/scc_bench.xz > /tmp/bin/scc_bench && chmod +x /tmp/bin/scc_bench
tar -C /tmp/shared --strip-components=1 -xJf $d/shared.tar.xz shared/mcc/Peterson-PT-3 shared/mcc/Referendum-PT-0015
RUST_LOG=warpcheck::scc::gpu=debug SCC_BENCH_ONLY=random SCC_BENCH_GPU_ONLY=1 timeout 150 \
  /tmp/bin/scc_bench /tmp/graphs /tmp/shared/mcc/Peterson-PT-3 /tmp/shared/mcc/Referendum-PT-0015 2> /tmp/log.txt
grep -E "SCC renumbering|Coloring" /tmp/log.txt | sed 's/^[0-9T:.-]*Z DEBUG warpcheck::scc::gpu: //'
