# Sourced by run-a.sh and run-b.sh: `bench NAME ROUNDS CONFIGS OINKS` runs,
# ROUNDS times, each of our CONFIGS ("build engine-args", the builds in
# /tmp/bin) and each of OINKS (Oink solver words) on /tmp/g/NAME.pg,
# interleaved. Ours print load/prepare/solve seconds of --format json
# (prepare is absent from `before`); Oink prints its "total solving time".
# Every line also has the process's wall-clock seconds. Expects $d (the
# carried folder, with oink) and LD_LIBRARY_PATH for Oink.
now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2 - $1:.4f}')"; }
bench() {
  local name=$1 rounds=$2 configs=$3 oinks=$4 c s t0 t1 r build extra
  local g=/tmp/g/$name.pg
  echo "== $name $(date -u +%T)"
  r=$(timeout 60 /tmp/bin/after --quiet --format json parity $g --verify)
  echo "$name verified: rc=$? $(echo "$r" | grep -E '"(vertices|edges|won_by_even|solver|engine|verified)"' | tr -d '\n' | tr -s ' ')"
  for run in $(seq 1 $rounds); do
    while read -r c; do
      [ -z "$c" ] && continue
      read -r build extra <<< "$c"
      t0=$(now)
      r=$(timeout 60 /tmp/bin/$build --quiet --format json parity $g $extra)
      t1=$(now)
      echo "$name ours $c run $run: wall $(secs $t0 $t1) $(echo "$r" | grep -E '"(solver|race_winner|load_seconds|prepare_seconds|solve_seconds)"' | tr -d '\n' | tr -s ' ')"
    done <<< "$configs"
    while read -r s; do
      [ -z "$s" ] && continue
      t0=$(now)
      r=$(timeout 30 $d/oink $s -z 25 $g 2>&1)
      t1=$(now)
      echo "$name oink $s run $run: wall $(secs $t0 $t1) solve $(echo "$r" | grep -oE 'total solving time: [0-9.]+' | grep -oE '[0-9.]+$')"
    done <<< "$oinks"
  done
}
