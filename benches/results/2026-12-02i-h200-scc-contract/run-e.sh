#!/usr/bin/env bash
# Device call E (session 22), issue 13: labels as kernel trees, the binary
# of call B: `ident` (a state's label is its number plus one, as
# ECL-SCC's) and `rev` (its number's complement: the smallest state wins),
# against the built-in scrambled priorities, now that the grid is
# contracted. Peterson-PT-3 alternately, then once each on the others.
# Carried: .device/s22.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/graphs
exec > >(tee "$out/run-e.txt") 2>&1
d=.device/s22
nvidia-smi -L
xz -dc $d/scc_bench.xz > /tmp/bin/scc_bench && chmod +x /tmp/bin/scc_bench
start=$(date +%s)
bench() {  # variant, SCC_BENCH_ONLY, nets...
  local v=$1 only=$2; shift 2
  local dir=()
  [[ $v == built-in ]] || dir=(WARPCHECK_KERNEL_DIR=$PWD/$d/kv/$v)
  echo "== scc_bench $v ($only $(basename -a "$@" 2>/dev/null | tr '\n' ' '))"
  env "${dir[@]}" WARPCHECK_KERNEL_CACHE=/tmp/kc-$v RUST_LOG=warpcheck::scc::gpu=debug \
    SCC_BENCH_ONLY=$only SCC_BENCH_GPU_ONLY=1 timeout 100 /tmp/bin/scc_bench /tmp/graphs "$@" 2> /tmp/log.txt \
    | grep -E "DIFFERENT|same as|panicked"
  grep -E " Coloring:|panicked|error" /tmp/log.txt
  (echo "== log $v $only"; grep -v "generated edges" /tmp/log.txt) >> "$out/logs-e.txt"
}
for v in ident rev built-in ident rev; do bench $v none $d/mcc/Peterson-PT-3; done
echo "elapsed $(( $(date +%s) - start )) s"
for g in grid rmat random; do for v in ident rev; do bench $v $g; done; done
echo "elapsed $(( $(date +%s) - start )) s"
for v in ident rev; do bench $v none $d/mcc/Referendum-PT-0015; done
echo "elapsed $(( $(date +%s) - start )) s"
