#!/usr/bin/env bash
# Device call D (session 25), issue 15: `--engine auto` with the GPU
# joining the race after a head start of 30 ms (parity::GPU_HEAD_START),
# side by side with the build before (5d3c51b1, `old`), on the games of
# 10^5 vertices or more of session 24's table; the new build also has
# alternating SPM on the GPU (not used by auto). One verified run of the
# new build, then 5 runs of each build in turn; Oink's fastest solvers
# (session 24) 3 runs each, 16 workers where parallel. Solve times
# exclude parsing. Then one debug run of the GPU's SPM on pgrand-200k-s11
# (where its time goes).
# Carried: .device/s25 (old build, Oink, its Boost library, counter_qpt
# generator, ../shared/parity) and .device/s25d (new build, Oink's
# generators, rngame 1000000 100 1 3 made on the 2-core machine).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/games /tmp/shared
exec > >(tee "$out/run-d.txt") 2>&1
d=.device/s25; n=.device/s25d
start=$(date +%s)
nvidia-smi -L; nproc; date -u
xz -dc $d/warpcheck.xz > /tmp/bin/old; xz -dc $n/warpcheck.xz > /tmp/bin/new; chmod +x /tmp/bin/*
tar -C /tmp/shared -xJf $d/parity.tar.xz
# (`wait` names its jobs: a bare one would also wait for the tee above.)
jobs=()
xz -dc $n/rngame-1M-100-1-3.pg.xz > /tmp/games/rngame-1M-100-1-3.pg & jobs+=($!)
$n/gen/stgame 1000000 2 6 2 6 > /tmp/games/stgame-1M-2-6-2-6.pg & jobs+=($!)
$n/gen/counter_m 333333 > /tmp/games/counter_m-333333.pg & jobs+=($!)
$n/gen/counter_ortl 200000 > /tmp/games/counter_ortl-200000.pg & jobs+=($!)
$n/gen/counter_qpt 500000 > /tmp/games/counter_qpt-500000.pg & jobs+=($!)
$n/gen/counter_qpt 5000000 > /tmp/games/counter_qpt-5000000.pg & jobs+=($!)
wait "${jobs[@]}"
echo "games made after $(( $(date +%s) - start )) s"
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kc
/tmp/bin/new --quiet parity /tmp/games/counter_qpt-500000.pg --engine gpu > /dev/null   # fills the kernel cache
/tmp/bin/old --quiet parity /tmp/games/counter_qpt-500000.pg --engine gpu > /dev/null
field() { grep -E "\"($1)\"" | tr -d '\n' | tr -s ' '; }
bench() {  # game, Oink's solvers...
  local g=$1; shift
  local name; name=$(basename $g .gz); name=${name%.pg}
  echo "== $name $(date -u +%T)"
  r=$(timeout 60 /tmp/bin/new --quiet --format json parity $g --verify --timeout 30)
  echo "$name new verified: rc=$? $(echo "$r" | field 'engine|solve_seconds|won_by_even|verified')"
  for run in 1 2 3 4 5; do
    for b in old new; do
      r=$(timeout 60 /tmp/bin/$b --quiet --format json parity $g --timeout 30)
      echo "$name $b run $run: rc=$? $(echo "$r" | field 'solver|solve_seconds|race_winner|won_by_even')"
    done
  done
  for s in "$@"; do
    for run in 1 2 3; do
      echo "$name oink $s run $run: $(timeout 60 $d/oink --$s -z 30 $g 2>&1 | grep -E 'total solving time' | tr -s ' ')"
    done
  done
}
bench /tmp/games/counter_qpt-500000.pg tl "zlk -w 16"
bench /tmp/shared/parity/pgrand-200k-s11.pg.gz "zlk -w 16"
bench /tmp/games/stgame-1M-2-6-2-6.pg npp
bench /tmp/games/rngame-1M-100-1-3.pg npp
bench /tmp/games/counter_m-333333.pg tl
bench /tmp/games/counter_ortl-200000.pg tl
bench /tmp/games/counter_qpt-5000000.pg npp
RUST_LOG=warpcheck=debug timeout 30 /tmp/bin/new --quiet parity /tmp/shared/parity/pgrand-200k-s11.pg.gz --engine gpu --solver spm 2>&1 | grep -E "small progress|preprocessing, then"
echo "took $(( $(date +%s) - start )) s"; date -u
