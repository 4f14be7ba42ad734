#!/usr/bin/env bash
# Call 5: with tables from cuMemAlloc, the last growth step at 1/4 of the budget (other) against 1/32 (grow);
# and whether 32-bit slot numbers explain the largest table's 1-5 % against the old build.
cd "$(dirname "$0")/.."
nvidia-smi -L
TABLE_BENCH_REPEATS=2 TABLE_BENCH_TRACE="no-trace trace" TABLE_BENCH_OTHER=.device/warpcheck-ls4 timeout 420 scripts/table_bench.sh \
    .device/warpcheck-old .device/warpcheck .device/bench AutoFlight-PT-05a DES-PT-01a FlexibleBarrier-PT-08a Peterson-PT-4 ASLink-PT-01a AutoFlight-PT-06a \
    > "$OUT/table.tsv" 2> "$OUT/table.err"
cat "$OUT/table.tsv"
parse='import json,sys; r=json.load(sys.stdin); print(r["states"], r["transitions"], "%.3f" % r["search_seconds"], r["memory_bytes"], [d[1] for d in r["engine_details"] if "slot" in d[1]], sep="\t")'
for model in AutoFlight-PT-05a Peterson-PT-4 ASLink-PT-01a; do
  for repeat in 1 2; do
    for variant in old new; do
      if [[ $variant == old ]]; then cmd=(.device/warpcheck-old check); else cmd=(.device/warpcheck check --initial-table 4T); fi
      line=$(timeout 60 "${cmd[@]}" --engine gpu --no-trace --deadlock --all --memory 55G --format json .device/bench/$model/model.pnml | python3 -c "$parse")
      echo -e "$model\t$variant\t$repeat\t$line"
    done
  done
done | tee "$OUT/narrow.tsv"
