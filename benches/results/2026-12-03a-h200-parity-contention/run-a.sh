#!/usr/bin/env bash
# Device call A (session 25), issue 15. First the GPU tests of parity on
# the build of 5d3c51b1 (their CPU reference lifts Even's measures, then
# Odd's, as the GPU does). Then where `--engine auto` loses time on the
# two games where it is behind Oink (counter_qpt 500000, 10^6 vertices,
# where auto races the GPU against the CPU; pgrand-200k-s11, where it
# races priority promotion against tangle learning): auto as it is,
# the CPU alone (its race of pp and tangle), the CPU's race with a head
# start (--threads 3), priority promotion alone, each 7 runs in turn;
# Oink's fastest (tl, zlk -w 16) 5 runs each. Solve times exclude parsing.
# Carried: .device/s25 (stripped xz'd test binary and CLI, Oink 0a4a37f
# with Lace v1.4.1 and its Boost library, counter_qpt generator,
# ../shared/parity as parity.tar.xz).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/shared /tmp/games
exec > >(tee "$out/run-a.txt") 2>&1
d=.device/s25
start=$(date +%s)
nvidia-smi -L; nproc; date -u
for f in warpcheck tests; do xz -dc $d/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
tar -C /tmp/shared -xJf $d/parity.tar.xz
$d/gen/counter_qpt 500000 > /tmp/games/counter_qpt-500000.pg
cp /tmp/bin/tests .device/tests
env_tests=(WARPCHECK_KERNEL_CACHE=/tmp/kc WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/warpcheck)
echo "== GPU tests: parity $(date -u +%T)"
env "${env_tests[@]}" timeout 330 bash scripts/gpu_test.sh parity_gpu:: 2>&1 \
  | grep -E -A3 "^test |test result|panicked|assert|SKIPPED" | grep -v "^\s*$" | head -120
echo "tests took $(( $(date +%s) - start )) s"
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kc
field() { grep -E "\"($1)\"" | tr -d '\n' | tr -s ' '; }
for g in /tmp/games/counter_qpt-500000.pg /tmp/shared/parity/pgrand-200k-s11.pg.gz; do
  name=$(basename $g .gz); name=${name%.pg}
  echo "== $name $(date -u +%T)"
  for run in 1 2 3 4 5 6 7; do
    for config in "auto|--engine auto" "cpu|--engine cpu" "cpu-threads-3|--engine cpu --threads 3" \
                  "auto-threads-3|--engine auto --threads 3" "pp|--engine cpu --solver pp"; do
      label=${config%%|*}; read -r -a args <<<"${config#*|}"
      r=$(timeout 60 /tmp/bin/warpcheck --quiet --format json parity $g "${args[@]}" --timeout 30)
      echo "$name $label run $run: rc=$? $(echo "$r" | field 'engine|solve_seconds|load_seconds|won_by_even')"
    done
  done
  for s in "tl" "zlk -w 16"; do
    for run in 1 2 3 4 5; do
      echo "$name oink $s run $run: $(timeout 60 $d/oink --$s -z 30 $g 2>&1 | grep -E 'total solving time' | tr -s ' ')"
    done
  done
done
echo "took $(( $(date +%s) - start )) s"; date -u
