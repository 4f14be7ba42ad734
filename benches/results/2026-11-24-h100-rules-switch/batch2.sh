#!/usr/bin/env bash
# Call 2: the RULE_INDEXES switch off (new) against forced on (indexes), largest table, interleaved;
# then the P/T nets of more than 5e8 states on the GPU.
cd "$(dirname "$0")/.."
nvidia-smi -L
parse='import json,sys; r=json.load(sys.stdin); print(r["states"], r["transitions"], "%.3f" % r["search_seconds"], r["memory_bytes"], r.get("storage","-"), sep="\t")'
echo -e "model\tvariant\trepeat\tstates\ttransitions\tsearch_s\tmemory_bytes\tstorage" > "$OUT/switch.tsv"
for model in AutoFlight-PT-05a DES-PT-01a FlexibleBarrier-PT-08a Peterson-PT-4 ASLink-PT-01a; do
  for repeat in 1 2 3; do
    for variant in switch indexes; do
      bin=.device/warpcheck; [[ $variant == indexes ]] && bin=.device/warpcheck-indexes
      line=$(timeout 60 $bin check --engine gpu --no-trace --deadlock --all --initial-table 4T --format json .device/bench/$model/model.pnml | python3 -c "$parse")
      echo -e "$model\t$variant\t$repeat\t$line" >> "$OUT/switch.tsv"
    done
  done
done
cat "$OUT/switch.tsv"
line=$(timeout 60 .device/warpcheck check --engine gpu --no-trace --deadlock --all --format json .device/bench/ARMCacheCoherence-PT-none/model.pnml | python3 -c "$parse")
echo -e "ARMCacheCoherence-PT-none\tswitch\t1\t$line" | tee -a "$OUT/switch.tsv"
# P/T nets beyond 5e8 states (../shared/mcc-pt), no traces, default storage (auto).
echo -e "model\tstates\ttransitions\tsearch_s\tmemory_bytes\tstorage\twall_s\texit" > "$OUT/mccpt-large.tsv"
awk -F'\t' 'NR>1 && $2>5e8 {print $1}' .device/mccpt/oracles.tsv | while read -r model; do
  start=$(date +%s.%N)
  json=$(timeout 80 .device/warpcheck check --engine gpu --no-trace --deadlock --all --format json -v .device/mccpt/$model/model.pnml 2> "$OUT/$model.err"); code=$?
  end=$(date +%s.%N)
  line=$(python3 -c "$parse" <<<"$json" 2>/dev/null || echo "-")
  echo -e "$model\t$line\t$(python3 -c "print(round($end - $start, 2))")\t$code" | tee -a "$OUT/mccpt-large.tsv"
done
