#!/usr/bin/env bash
# Prepared in session 42, NOT YET RUN: issue 18's speed-up table on
# `nvidia-h200-x2` (NCCL, NVLink multicast off). Main's CLI (final.xz of
# prepare.sh) on the three nets of 10^9 states or more, one GPU against
# two, under the default storage and under trees, no traces, two rounds in
# alternating order: search seconds, the partitions' expanding / exchange /
# storing seconds and bytes exchanged a state. Issue 18 asks for 2 GPUs
# at 1.7x one or more (session 15: AutoFlight-PT-06a 1.66x, plain with
# traces). About 250 s. Carry the folder and set D to it.
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
log=run-x2
# Unpacks the carried binaries (main's CLI as /tmp/bin/final) and the nets.
source "$here/../2026-12-04g-h200-verify-and-jump/common.sh"
use_nccl
fields() {
  python3 -c "import json,sys
r=json.load(sys.stdin); p=r.get('partitions') or {}
print(*(r.get(k) for k in ('states','search_seconds','storage','exit_code')),
      *(p.get(k) for k in ('expanding_seconds','exchange_seconds','storing_seconds','bytes_exchanged_per_state')), sep='\t')"
}
printf 'net\tstorage\tgpus\tround\tstates\tsearch_s\tstored as\texit\texpanding\texchange\tstoring\tbytes/state\n'
for round in 1 2; do
  for model in AutoFlight-PT-06a Philosophers-PT-000020 Parking-PT-208; do
    for storage in auto tree; do
      gpus=(1 2); (( round == 2 )) && gpus=(2 1)
      for g in "${gpus[@]}"; do
        name=$model-$storage-$g-$round
        printf '%s\t%s\t%s\t%s\t' $model $storage $g $round
        timeout 150 /tmp/bin/final check --engine gpu --gpus $g --no-trace --deadlock --all \
          --storage $storage --format json -vv /tmp/shared/mcc/$model/model.pnml \
          > "$out/json/$name.json" 2> "$out/json/$name.err"
        fields < "$out/json/$name.json"
      done
    done
  done
  echo "round $round at $(( $(date +%s) - start )) s"
  (( $(date +%s) - start < 280 )) || break
done
grep -h "AutoFlight-PT-06a\|Philosophers-PT-000020\|Parking-PT-208" /tmp/shared/mcc/oracles.tsv | cut -f1-4
echo "took $(( $(date +%s) - start )) s"; date -u
