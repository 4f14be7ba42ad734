#!/usr/bin/env bash
# Alternating SPM against the build before (one player's measures after
# the other's), `--solver spm --engine cpu`, on the 2-core development
# machine: one run each, 30 s given, on the games of ../shared/parity
# where either took longest. Usage: spm-2core.sh OLD NEW [SHARED]
set -u
old=$1 new=$2 shared=${3:-../shared}
for n in counter_dp-20.pg counter_ortl-20.pg counter_m-20.pg counter_rob-5.pg tc-10.pg tc-12.pg \
         pgrand-200k-s11.pg.gz syntcomp-genbuf2.pg.gz syntcomp-ltl2dpa03.pg counter_rr-20.pg \
         counter_symsi-10.pg tcplus-10.pg; do
  line=$n
  for b in "$old" "$new"; do
    r=$(timeout 40 "$b" parity "$shared/parity/$n" --solver spm --engine cpu --format json -q --timeout 30 2>/dev/null \
        | python3 -c "import json,sys; print(json.load(sys.stdin).get('solve_seconds') or 'ran-out')" 2>/dev/null)
    line="$line ${r:-ran-out}"
  done
  echo "$line"
done
