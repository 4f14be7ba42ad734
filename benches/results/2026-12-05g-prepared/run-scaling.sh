#!/usr/bin/env bash
# Prepared in session 44, NOT YET RUN: issue 19's scaling run, on
# `nvidia-h200-x8` or `nvidia-h200-x4` (NCCL; common.sh sets
# NCCL_NVLS_ENABLE=0, NVLink multicast off). Main's CLI (final.xz of
# prepare.sh), one process a run, `--gpus G` for every G of 1, 2, 4, 8
# that the machine has:
#   1. the three ../shared/mcc nets of 10^9 states or more, default storage,
#      no traces, deadlocks counted (`--deadlock --all`), G ascending;
#   2. the capacity run: the generated philosophers of n = 28
#      (52,205,852,194 states) on 8 GPUs, of n = 27 (21,624,372,014) on 4,
#      as trees without traces;
#   3. the nets of 1 again, G descending, while the time allows.
# Each run prints a line of tab-separated figures (the header says which);
# table.py turns the log into the report's table and checks every count.
# Carry the folder and set D to it; CALL_LIMIT (default 585) is the
# seconds this script may take, from its start.
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
log=run-scaling
# Unpacks the carried binaries (main's CLI as /tmp/bin/final) and the nets.
source "$here/../2026-12-04g-h200-verify-and-jump/common.sh"
use_nccl
limit=${CALL_LIMIT:-585}
devices=$(nvidia-smi -L | grep -c '^GPU')
counts=()
for g in 1 2 4 8; do (( g <= devices )) && counts+=("$g"); done
echo "GPUs: $devices; runs on ${counts[*]}"
left() { echo $(( limit - ($(date +%s) - start) )); }
figures() {
  python3 -c "import json,sys
r=json.load(sys.stdin); p=r.get('partitions') or {}
print(*(r.get(k) for k in ('states','transitions','deadlocks','search_seconds','states_per_second','bytes_per_state','memory_bytes','storage','exit_code')),
      *(p.get(k) for k in ('bytes_exchanged_per_state','expanding_seconds','exchange_seconds','storing_seconds')), sep='\t')" 2>/dev/null ||
    printf 'None\tNone\tNone\tNone\tNone\tNone\tNone\tNone\tNone\tNone\tNone\tNone\tNone\n'
}
# scale ROUND GPUS STORAGE MODEL_FILE NAME: one run, one line; none when
# fewer than 20 s are left.
scale() {
  local seconds
  seconds=$(left)
  (( seconds > 20 )) || { echo "skipped: $5 on $2 GPU(s), $seconds s left"; return; }
  (( seconds > 240 )) && seconds=240
  local name=$5-$3-$2-$1
  printf '%s\t%s\t%s\t%s\t' "$5" "$3" "$2" "$1"
  timeout $(( seconds - 10 )) /tmp/bin/final check --engine gpu --gpus "$2" --no-trace --deadlock --all \
    --storage "$3" --format json -vv "$4" > "$out/json/$name.json" 2> "$out/json/$name.err"
  figures < "$out/json/$name.json"
}
printf 'net\tstorage\tgpus\tround\tstates\ttransitions\tdeadlocks\tsearch_s\tstates/s\tbytes/state\tmemory\tstored as\texit\texchanged/state\texpanding_s\texchange_s\tstoring_s\n'
nets=(AutoFlight-PT-06a Philosophers-PT-000020 Parking-PT-208)
for model in "${nets[@]}"; do
  for g in "${counts[@]}"; do scale 1 "$g" auto /tmp/shared/mcc/$model/model.pnml $model; done
done
echo "round 1 at $(( $(date +%s) - start )) s"
if (( devices >= 4 )); then
  if (( devices >= 8 )); then n=28 g=8; else n=27 g=4; fi
  /tmp/bin/final generate philosophers $n -o /tmp/philosophers-$n.net -q
  scale 1 $g tree /tmp/philosophers-$n.net philosophers-$n
  echo "capacity run at $(( $(date +%s) - start )) s"
fi
for model in "${nets[@]}"; do
  for (( k = ${#counts[@]} - 1; k >= 0; k-- )); do
    scale 2 "${counts[k]}" auto /tmp/shared/mcc/$model/model.pnml $model
  done
done
grep -h "AutoFlight-PT-06a\|Philosophers-PT-000020\|Parking-PT-208" /tmp/shared/mcc/oracles.tsv | cut -f1-4
tar -C "$out" -cJf "$out/json-scaling.tar.xz" json && rm -rf "$out/json"
echo "took $(( $(date +%s) - start )) s"; date -u
