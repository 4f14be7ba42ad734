#!/usr/bin/env bash
# Device call (session 18): the GPU's preprocessing of parity games (the
# cycles each player controls and their attractors, src/parity/gpu/controlled.rs):
# (1) the GPU parity tests; (2) the three games of 10^6 vertices from
# Oink's generators (`rngame 1000000 100 1 3`, `rngame 1000000 1000000 2 5
# noself`, made on the 2-core machine; `stgame 1000000 2 6 2 6`, made here): warpcheck
# on the CPU (auto, pp) and on the GPU (auto, pp), three runs each,
# beside Oink's solvers (16 workers where parallel), one run each, in
# the same call. Carried: .device/s18p (xz'd binaries and games, oink,
# stgame and Oink's Boost library; the tests read the bundled tests/data/parity).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/games
exec > >(tee "$out/run-a.txt") 2>&1
d=.device/s18p
nvidia-smi -L
nproc
for f in warpcheck tests; do xz -dc $d/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
cp /tmp/bin/tests .device/tests
for g in $d/games/*.xz; do xz -dc $g > /tmp/games/$(basename $g .xz) & done
# Made here, during the tests (about a minute of one core).
$d/stgame 1000000 2 6 2 6 > /tmp/games/stgame-1M-2-6-2-6.pg &
export WARPCHECK_KERNEL_CACHE=/tmp/kernel-cache
echo "== GPU tests"
WARPCHECK_BIN=/tmp/bin/warpcheck timeout 330 bash scripts/gpu_test.sh parity_gpu:: --nocapture 2>&1 \
  | grep -E "^test |test result|panicked|assert|rngame|left|right" | head -60
wait
export LD_LIBRARY_PATH=$d/lib
for g in /tmp/games/*.pg; do
  name=$(basename $g .pg)
  for run in 1 2 3; do
    for engine in cpu gpu; do
      for solver in auto pp; do
        verify=$([[ $run == 1 ]] && echo --verify)
        r=$(timeout 60 /tmp/bin/warpcheck --quiet --format json parity $g --engine $engine --solver $solver $verify)
        echo "$name warpcheck $engine $solver run $run: $(echo "$r" | grep -E '"(solver|solve_seconds|load_seconds|won_by_even|verified|verify_seconds)"' | tr -d ' \n')"
      done
    done
  done
  for s in npp pp ppp dp zlk:-w:16 fpi:-w:16 psi:-w:16 tl spm; do
    name_s=${s%%:*}; extra=(); [[ $name_s == $s ]] || IFS=: read -r -a extra <<<"${s#*:}"
    r=$(timeout 40 $d/oink --$name_s "${extra[@]}" -z 30 $g 2>&1)
    echo "$name oink $s: $(echo "$r" | grep -E 'parsing took|total solving time|trivial cycles|preprocessing took' | tr -s ' ' | tr '\n' '|')"
  done
done
