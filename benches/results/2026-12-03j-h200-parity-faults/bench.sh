# Sourced by run-b.sh and run-c.sh: `bench NAME ROUNDS` times `--engine
# auto` (the default) and `--engine cpu` of /tmp/bin/warpcheck against
# Oink on /tmp/g/NAME.pg. One verified run first; then a scouting round
# of Oink's zlk (16 and 1 workers), npp, pp and tl (15 s limit each);
# then ROUNDS rounds of ours (auto, cpu) and Oink's two fastest in the
# scouting round. Solve times exclude parsing on both sides. Expects
# $d (the carried folder, with oink) and LD_LIBRARY_PATH for Oink.
field() { grep -E "\"($1)\"" | tr -d '\n' | tr -s ' '; }
oink_time() {  # solver words... -> "total solving time" or "none"
  timeout 15 $d/oink $@ -z 14 $g 2>&1 | grep -E 'total solving time' | grep -oE '[0-9.]+ sec' | cut -d' ' -f1 || true
}
bench() {
  local name=$1 rounds=$2 r s t
  g=/tmp/g/$name.pg
  echo "== $name $(date -u +%T)"
  r=$(timeout 60 /tmp/bin/warpcheck --quiet --format json parity $g --verify)
  echo "$name verified: rc=$? $(echo "$r" | field 'vertices|edges|won_by_even|engine|solver|verified|solve_seconds')"
  local scout=()
  for s in "zlk -w 16" "zlk -w 1" "npp" "pp" "tl"; do
    t=$(oink_time --$s)
    echo "$name oink $s scout: ${t:-none}"
    [ -n "$t" ] && scout+=("$t --$s")
  done
  mapfile -t best < <(printf '%s\n' "${scout[@]}" | sort -g | head -2 | cut -d' ' -f2-)
  for run in $(seq 1 $rounds); do
    for engine in auto cpu; do
      r=$(timeout 60 /tmp/bin/warpcheck --quiet --format json parity $g --engine $engine)
      echo "$name $engine run $run: rc=$? $(echo "$r" | field 'won_by_even|solver|race_winner|solve_seconds')"
    done
    for s in "${best[@]}"; do
      echo "$name oink ${s#--} run $run: $(oink_time $s)"
    done
  done
}
