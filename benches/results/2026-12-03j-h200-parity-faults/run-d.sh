#!/usr/bin/env bash
# Device call D (session 31), issue 15. First, side by side, `before`
# (0232e2d8) and `after` (9c371fb9: priority promotion solves each
# player's won self-loops and their attractors first) with `--engine
# auto` on pgrand-200k-s11 and a random game of 10^5 vertices with 5 to
# 15 moves each (`parity_random 100000 1000 5 15 7`), 7 rounds beside
# Oink's `zlk -w 16`, `tl` and `npp`; and `--engine cpu` on `rngame
# 1000000 100 1 3` (where `auto` lets the GPU win), 3 rounds beside
# Oink's `npp`. Then a game of 10^7 vertices and 10^8 edges
# (`parity_random 10000000 1000 5 15 7`): one verified run of `auto`,
# another, one of `--engine cpu`, each with its peak memory; Oink's `zlk
# -w 16`, `npp` and `tl` once each (120 s limit with parsing). Solve
# times exclude parsing. Carried: .device/s31 (both builds, Oink 0a4a37f
# with Lace v1.4.1 and its Boost library, the generators) and
# .device/s31g (the rngame, and pgrand-200k-s11 of ../shared/parity).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/g
exec > >(tee "$out/run-d.txt") 2>&1
d=.device/s31
start=$(date +%s)
nvidia-smi -L; nproc; date -u; cat $d/BUILD
xz -dc $d/warpcheck.xz > /tmp/bin/after; xz -dc $d/before.xz > /tmp/bin/before; chmod +x /tmp/bin/*
$d/gen/parity_random 100000 1000 5 15 7 > /tmp/g/random-100k.pg
zcat $d/../s31g/pgrand-200k-s11.pg.gz > /tmp/g/pgrand-200k-s11.pg
xz -dc $d/../s31g/rngame-1M-100-1-3.pg.xz > /tmp/g/rngame-1M-100-1-3.pg
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kc
seconds() { grep -oE '"solve_seconds": [0-9.]+' | grep -oE '[0-9.]+$'; }
oink() {  # solver words... (game in $g)
  timeout 60 $d/oink $@ -z 55 $g 2>&1 | grep -oE 'total solving time: [0-9.]+' | grep -oE '[0-9.]+$'
}
side_by_side() {  # name rounds engine oink-solvers...
  local name=$1 rounds=$2 engine=$3 run b s
  shift 3
  g=/tmp/g/$name.pg
  echo "== $name $(date -u +%T)"
  echo "$name after verified: $(/tmp/bin/after --quiet --format json parity $g --engine $engine --verify | grep -E '"(won_by_even|verified)"' | tr -d '\n ')"
  for run in $(seq 1 $rounds); do
    for b in before after; do
      echo "$name $b $engine run $run: $(/tmp/bin/$b --quiet --format json parity $g --engine $engine | seconds)"
    done
    for s in "$@"; do echo "$name oink $s run $run: $(oink --$s)"; done
  done
}
side_by_side pgrand-200k-s11 7 auto "zlk -w 16" tl npp
side_by_side random-100k 7 auto "zlk -w 16" tl npp
side_by_side rngame-1M-100-1-3 3 cpu npp
echo "side by side took $(( $(date +%s) - start )) s"
g=/tmp/g/random-10M-1000-5-15-7.pg
$d/gen/parity_random 10000000 1000 5 15 7 > $g
echo "== random-10M made after $(( $(date +%s) - start )) s: $(stat -c %s $g) bytes"
ours() {  # label args...
  local label=$1 r
  shift
  r=$( { /usr/bin/time -v timeout 200 /tmp/bin/after --quiet --format json parity $g "$@"; } 2> /tmp/time.txt)
  echo "random-10M $label: $(echo "$r" | grep -E '"(vertices|edges|won_by_even|solver|race_winner|engine|verified|load_seconds|solve_seconds|error)"' | tr -d '\n' | tr -s ' ') $(grep -E 'Maximum resident|Exit status' /tmp/time.txt | tr -d '\n\t')"
}
ours "auto verified" --verify
ours "auto run 1"
ours "cpu run 1" --engine cpu
for s in "zlk -w 16" npp tl; do
  echo "random-10M oink $s: $(timeout 120 $d/oink --$s -z 110 $g 2>&1 | grep -E 'parsing took|total solving time' | tr -s ' ' | tr '\n' ' ')"
done
echo "took $(( $(date +%s) - start )) s"; date -u
