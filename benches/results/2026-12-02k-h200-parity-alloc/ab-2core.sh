#!/usr/bin/env bash
# Alternate runs of `warpcheck parity GAME --solver SOLVER --engine cpu` with
# each build given, on the 2-core development machine: medians of load,
# solve and total seconds, the least and most solve time.
# Usage: ab-2core.sh GAME SOLVER RUNS BIN...
g=$1; s=$2; n=$3; shift 3
for i in $(seq $n); do for b in "$@"; do
  echo "$b $($b parity $g --solver $s --engine cpu -q --format json 2>/dev/null | python3 -c "import json,sys; d=json.load(sys.stdin); print(d['load_seconds'], d['solve_seconds'], d['elapsed_seconds'])")"
done; done | python3 -c "
import sys,statistics as st,collections
rows=collections.defaultdict(list)
for l in sys.stdin:
    b,*v=l.split(); rows[b].append(list(map(float,v)))
for b,r in rows.items():
    print('%-14s load %.4f solve %.4f [%.4f-%.4f] total %.4f' % (b, st.median(x[0] for x in r), st.median(x[1] for x in r), min(x[1] for x in r), max(x[1] for x in r), st.median(x[2] for x in r)))"
