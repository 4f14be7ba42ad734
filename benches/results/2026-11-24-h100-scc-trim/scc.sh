#!/usr/bin/env bash
# SCC side by side: ECL-SCC and the SCC bench of f22fb95 (before) and of this
# commit (after: wave trimming before colouring), in one call on the GPU machine.
cd "$(dirname "$0")/../../.."
nvidia-smi -L
for variant in before after; do
  bin=.device/scc_bench; [[ $variant == before ]] && bin=.device/scc_bench-before
  echo "== $variant"
  timeout 250 scripts/scc_bench.sh $bin .device/ecl /tmp/sccb-$variant .device/mcc/Peterson-PT-3 .device/mcc/Referendum-PT-0015 \
     > "$OUT/table-$variant.txt" 2> "$OUT/log-$variant.txt"
  cat "$OUT/table-$variant.txt"
done
