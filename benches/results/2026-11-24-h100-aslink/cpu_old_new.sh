#!/usr/bin/env bash
# CPU engine, old (4ac5eb6) against new, whole nets on every core, interleaved.
set -u
dir=$1 out=$2
printf "model\tbuild\trun\tstates\ttransitions\tsearch_s\tuser_s\n" > "$out"
for model in ASLink-PT-01a DES-PT-01a AutoFlight-PT-05a; do
  for run in 1 2 3; do
    for build in old new; do
      bin=.device/warpcheck; [ $build = old ] && bin=.device/warpcheck-old
      /usr/bin/time -f "%U" -o /tmp/user.txt $bin check $dir/$model/model.pnml --engine cpu --deadlock --all --no-trace --format json > /tmp/r.json 2>/dev/null
      python3 - "$model" "$build" "$run" "$(cat /tmp/user.txt)" >> "$out" <<'PY'
import json, sys
r = json.load(open("/tmp/r.json"))
m, b, run, user = sys.argv[1:]
print(f"{m}\t{b}\t{run}\t{r['states']}\t{r['transitions']}\t{r['search_seconds']:.3f}\t{user}")
PY
    done
  done
done
cat "$out"
