#!/usr/bin/env bash
# Device call B (session 19), on the final binaries: the GPU tests of
# parity games, SCC and MEC (the SCC kernels now take a stop), then every
# game of 10^6 vertices or more and pgrand-200k-s11 beside Oink, as in
# run-a.sh, and the build before this session's changes (`old`, 7733c5a7)
# beside the final one on the CPU (`--engine cpu --solver pp`: the
# transpose that pp starts with now runs on all cores). Oink 0a4a37f
# (Lace v1.4.1), one run per solver, 16 workers where parallel; on
# counter_m and counter_ortl only `tl`, the one solver of Oink's that
# solved them within 15 s in run-a.sh. rngame-1M-1M-2-5 last: Oink parses
# it for about a minute, three solvers in parallel, 10 s apart.
# Games: made here by Oink's generators with the parameters of run-a.sh
# (rngame and stgame are unseeded: other instances than run-a.sh's; the
# counter games are deterministic), and rngame 1000000 1000000 2 5 noself.
# Carried: .device/s19 (xz'd binaries, oink and its Boost library, Oink's
# generators, ../shared/parity/pgrand-200k-s11.pg.gz).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/games
exec > >(tee "$out/run-b.txt") 2>&1
d=.device/s19
nvidia-smi -L; nproc; date -u
for b in warpcheck warpcheck-old; do xz -dc $d/$b.xz > /tmp/bin/$b && chmod +x /tmp/bin/$b; done
xz -dc $d/tests.xz > .device/tests && chmod +x .device/tests
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kernel-cache
# Oink's rngame and stgame take a minute or more each: made while the
# tests run, each on a core of its own.
$d/gen/stgame 1000000 2 6 2 6 > /tmp/games/stgame-1M-2-6-2-6.pg &
stgame=$!
$d/gen/rngame 1000000 100 1 3 > /tmp/games/rngame-1M-100-1-3.pg &
rngame=$!
$d/gen/rngame 1000000 1000000 2 5 noself > /tmp/games/rngame-1M-1M-2-5.pg &
rngame_1m=$!
$d/gen/counter_m 333333 > /tmp/games/counter_m-333333.pg
$d/gen/counter_ortl 200000 > /tmp/games/counter_ortl-200000.pg
$d/gen/counter_qpt 500000 > /tmp/games/counter_qpt-500000.pg
$d/gen/counter_qpt 5000000 > /tmp/games/counter_qpt-5000000.pg
echo "== GPU tests $(date -u +%T)"
WARPCHECK_BIN=/tmp/bin/warpcheck timeout 200 bash scripts/gpu_test.sh parity_gpu:: scc::the_gpu scc::gpu mec::the_gpu 2>&1 \
  | grep -E "^test |test result|panicked|SKIPPED|FAILED|failures" | tail -70
oink_times() { grep -E 'parsing took|total solving time|trivial cycles|preprocessing took' | tr -s ' ' | tr '\n' '|'; }
field() { grep -E "\"($1)\"" | tr -d '\n' | tr -s ' '; }
bench() {
  local g=$1 name; name=$(basename $g .gz); name=${name%.pg}
  echo "== $name $(date -u +%T)"
  local engines=(auto gpu cpu)
  [[ $name == counter_qpt-5000000 ]] && engines=(auto cpu)
  for run in 1 2 3; do
    for engine in "${engines[@]}"; do
      r=$(timeout 60 /tmp/bin/warpcheck --quiet --format json parity $g --engine $engine --timeout 20 $([[ $run == 1 ]] && echo --verify))
      echo "$name warpcheck $engine run $run: rc=$? $(echo "$r" | field 'solver|solve_seconds|elapsed_seconds|race_winner|verified|won_by_even')"
    done
  done
  for b in warpcheck-old warpcheck; do
    for run in 1 2; do
      r=$(timeout 60 /tmp/bin/$b --quiet --format json parity $g --engine cpu --solver pp)
      echo "$name $b cpu pp run $run: rc=$? $(echo "$r" | field 'solve_seconds|won_by_even')"
    done
  done
  local solvers=(npp pp zlk:-w:16 fpi:-w:16 psi:-w:16 tl)
  [[ $name == counter_m* || $name == counter_ortl* ]] && solvers=(tl)
  for s in "${solvers[@]}"; do
    local name_s=${s%%:*} extra=(); [[ $name_s == $s ]] || IFS=: read -r -a extra <<<"${s#*:}"
    echo "$name oink $s: $(timeout 60 $d/oink --$name_s "${extra[@]}" -z 15 $g 2>&1 | oink_times)"
  done
}
wait $rngame; ls -la /tmp/games
for g in /tmp/games/rngame-1M-100-1-3.pg /tmp/games/counter_m-333333.pg /tmp/games/counter_ortl-200000.pg \
         /tmp/games/counter_qpt-500000.pg $d/pgrand-200k-s11.pg.gz; do bench $g; done
wait $stgame; bench /tmp/games/stgame-1M-2-6-2-6.pg
bench /tmp/games/counter_qpt-5000000.pg
g=/tmp/games/rngame-1M-1M-2-5.pg
wait $rngame_1m
echo "== rngame-1M-1M-2-5 $(date -u +%T)"
for run in 1 2; do
  for engine in auto gpu cpu; do
    r=$(timeout 60 /tmp/bin/warpcheck --quiet --format json parity $g --engine $engine --timeout 20 $([[ $run == 1 ]] && echo --verify))
    echo "rngame-1M-1M-2-5 warpcheck $engine run $run: rc=$? $(echo "$r" | field 'solver|solve_seconds|elapsed_seconds|race_winner|verified|won_by_even')"
  done
done
oink_bg=()
for s in npp tl zlk:-w:16; do
  name_s=${s%%:*}; extra=(); [[ $name_s == $s ]] || IFS=: read -r -a extra <<<"${s#*:}"
  ( sleep $(( ${#oink_bg[@]} * 10 )); timeout 150 $d/oink --$name_s "${extra[@]}" $g 2>&1 | oink_times > /tmp/oink-rn1m1m-$name_s.txt ) &
  oink_bg+=($!)
done
for p in "${oink_bg[@]}"; do wait $p; done
for f in /tmp/oink-rn1m1m-*.txt; do echo "rngame-1M-1M-2-5 oink $(basename $f .txt | sed 's/oink-rn1m1m-//'): $(cat $f)"; done
date -u
