#!/usr/bin/env bash
# Call 3: tree storage with the frontier in bitmaps of new marks without traces too (new) against queues (queues),
# on an H100; SwimmingPool-PT-07 (4.16e9 states) and Parking-PT-208 (4.57e9) on the H100.
cd "$(dirname "$0")/.."
nvidia-smi -L
parse='import json,sys; r=json.load(sys.stdin); print(r["states"], r["transitions"], "%.3f" % r["search_seconds"], r["memory_bytes"], r.get("storage","-"), "%.2f" % r.get("bytes_per_state", 0), sep="\t")'
echo -e "model\tvariant\trepeat\tstates\ttransitions\tsearch_s\tmemory_bytes\tstorage\tbytes_per_state\texit" > "$OUT/tree.tsv"
run() { # model dir variant repeat args...
  local model=$1 dir=$2 variant=$3 repeat=$4; shift 4
  local bin=.device/warpcheck; [[ $variant == queues ]] && bin=.device/warpcheck-queues
  json=$(timeout 120 $bin check --engine gpu --no-trace --deadlock --all --format json -v "$@" $dir/$model/model.pnml 2> "$OUT/$model-$variant-$repeat.err"); code=$?
  line=$(python3 -c "$parse" <<<"$json" 2>/dev/null || echo "-")
  echo -e "$model\t$variant\t$repeat\t$line\t$code" | tee -a "$OUT/tree.tsv"
}
for repeat in 1 2; do
  for variant in queues marks; do run AutoFlight-PT-06a .device/bench $variant $repeat --storage tree; done
done
run Philosophers-PT-000020 .device/bench marks 1 --storage tree
run Parking-PT-208 .device/bench marks 1 --storage tree
run SwimmingPool-PT-07 .device/mccpt marks 1
