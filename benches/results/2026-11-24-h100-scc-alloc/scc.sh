#!/usr/bin/env bash
# SCC side by side: ECL-SCC, the bench of main before (pool allocations) and after (cuMemAlloc) the change.
cd "$(dirname "$0")/.."
nvidia-smi -L
for variant in before after; do
  bin=.device/scc_bench; [[ $variant == before ]] && bin=.device/scc_bench-before
  echo "== $variant"
  timeout 280 scripts/scc_bench.sh $bin .device/ecl /tmp/sccb-$variant .device/mccall/Peterson-PT-3 .device/mccall/Referendum-PT-0015 \
     > "$OUT/table-$variant.txt" 2> "$OUT/log-$variant.txt"
  cat "$OUT/table-$variant.txt"; grep -i "round\|set-up\|summary\|phase" "$OUT/log-$variant.txt" | head -20
done
