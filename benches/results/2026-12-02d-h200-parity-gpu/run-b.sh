#!/usr/bin/env bash
# Device call B (session 18): the three games of 10^6 vertices from Oink's
# generators (`rngame 1000000 100 1 3`, `rngame 1000000 1000000 2 5
# noself`, made on the 2-core machine; `stgame 1000000 2 6 2 6`, made here
# while the first two run): warpcheck on the CPU (auto, pp) and on the GPU
# (auto, pp), three runs each, the first verified, beside Oink's solvers
# (16 workers where parallel), one run each, in the same call; then one
# GPU run with the debug log (rounds, waves, seconds a player).
# Carried: .device/s18p (xz'd binaries and games, oink, stgame, Oink's
# Boost library).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/games
exec > >(tee "$out/run-b.txt") 2>&1
d=.device/s18p
nvidia-smi -L
xz -dc $d/warpcheck.xz > /tmp/bin/warpcheck && chmod +x /tmp/bin/warpcheck
for g in $d/games/*.xz; do xz -dc $g > /tmp/games/$(basename $g .xz); done
$d/stgame 1000000 2 6 2 6 > /tmp/games/stgame.tmp &
stgame=$!
export WARPCHECK_KERNEL_CACHE=/tmp/kernel-cache LD_LIBRARY_PATH=$d/lib
bench() {
  local g=$1 name; name=$(basename $g .pg)
  for run in 1 2 3; do
    for engine in cpu gpu; do
      for solver in auto pp; do
        verify=$([[ $run == 1 ]] && echo --verify)
        r=$(timeout 60 /tmp/bin/warpcheck --quiet --format json parity $g --engine $engine --solver $solver $verify)
        echo "$name warpcheck $engine $solver run $run: $(echo "$r" | grep -E '"(solver|solve_seconds|load_seconds|won_by_even|verified|verify_seconds)"' | tr -d ' \n')"
      done
    done
  done
  for s in npp pp zlk:-w:16 fpi:-w:16 psi:-w:16 tl; do
    local name_s=${s%%:*} extra=(); [[ $name_s == $s ]] || IFS=: read -r -a extra <<<"${s#*:}"
    r=$(timeout 15 $d/oink --$name_s "${extra[@]}" -z 10 $g 2>&1)
    echo "$name oink $s: $(echo "$r" | grep -E 'parsing took|total solving time|trivial cycles|preprocessing took' | tr -s ' ' | tr '\n' '|')"
  done
  RUST_LOG=warpcheck::parity=debug /tmp/bin/warpcheck --quiet parity $g --engine gpu --solver pp 2>&1 | grep -E 'GPU|solved' | cut -c1-220
}
for g in /tmp/games/rngame-*.pg; do bench $g; done
wait $stgame && mv /tmp/games/stgame.tmp /tmp/games/stgame-1M-2-6-2-6.pg && bench /tmp/games/stgame-1M-2-6-2-6.pg
