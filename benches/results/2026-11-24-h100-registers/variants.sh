#!/bin/bash
# kernel variants side by side: old binary, and the new binary with each kernel dir
cd "$(dirname "$0")/../.."
# .device/b16/k held copies of kernels/ per variant (see README.md)
B=.device/b16; M=.device/aslink
printf 'model\ttrace\tvariant\tstates\ttransitions\tsearch_s\n'
for model in ASLink-PT-01a DES-PT-01a AutoFlight-PT-05a; do
  traces="no-trace"; [[ $model == ASLink-PT-01a ]] && traces="no-trace trace"
  for trace in $traces; do
    flag=(); [[ $trace == no-trace ]] && flag=(--no-trace)
    for rep in 1 2 3; do
      for v in old cur k1 k2 k3; do
        if [[ $v == old ]]; then cmd=(.device/warpcheck-old check --engine gpu)
        else cmd=(env WARPCHECK_KERNEL_DIR=$B/k/$v .device/warpcheck check --engine gpu --initial-table 4T); fi
        json=$("${cmd[@]}" "${flag[@]}" --deadlock --all --format json $M/$model/model.pnml 2>/dev/null || true)
        python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); print("\t".join(sys.argv[1:]+[str(r["states"]),str(r["transitions"]),"%.3f"%r["search_seconds"]]))' $model $trace $v <<<"$json" || echo "$model $trace $v FAILED"
      done
    done
  done
done
