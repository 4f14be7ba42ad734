#!/usr/bin/env bash
# Device call C (session 18), on the final binaries: (1) the two random
# games of 10^6 vertices: `warpcheck parity` with --engine auto (now the
# GPU from 10^6 vertices), gpu and cpu, three runs each, wall-clock time
# of the whole command (GPU context included) and solve_seconds; Oink's
# pp and tl (the best two on rngame-1M-100-1-3 in call B) twice each
# there; (2) the GPU parity tests of the preprocessing, the command line,
# the stop, and the SPM test that failed its quota in call A (with its
# output). Carried: .device/s18p.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/games
exec > >(tee "$out/run-c.txt") 2>&1
d=.device/s18p
nvidia-smi -L
for f in warpcheck tests; do xz -dc $d/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
cp /tmp/bin/tests .device/tests
for g in $d/games/rngame-*.xz; do xz -dc $g > /tmp/games/$(basename $g .xz); done
export WARPCHECK_KERNEL_CACHE=/tmp/kernel-cache
/tmp/bin/warpcheck --quiet parity specs/parity_example.pg --engine gpu > /dev/null  # fills the kernel cache
for g in /tmp/games/*.pg; do
  name=$(basename $g .pg)
  for run in 1 2 3; do
    for engine in auto gpu cpu; do
      s=$(date +%s.%N)
      r=$(timeout 60 /tmp/bin/warpcheck --quiet --format json parity $g --engine $engine)
      e=$(date +%s.%N)
      echo "$name warpcheck --engine $engine run $run: wall $(awk "BEGIN{print $e - $s}") $(echo "$r" | grep -E '"(engine|solve_seconds|load_seconds|won_by_even)"' | tr -d ' \n' | cut -c1-260)"
    done
  done
  if [[ $name == rngame-1M-100-1-3 ]]; then
    for run in 1 2; do for s in pp tl; do
      r=$(LD_LIBRARY_PATH=$d/lib timeout 20 $d/oink --$s $g 2>&1)
      echo "$name oink $s run $run: $(echo "$r" | grep -E 'parsing took|total solving time' | tr -s ' ' | tr '\n' '|')"
    done; done
  fi
done
echo "== GPU tests"
timeout 200 bash scripts/gpu_test.sh parity_gpu::the_gpus_preprocessing parity_gpu::the_cli parity_gpu::a_stop \
  parity_gpu::gpu_spm_equals_the_cpus_on_larger_random_games --nocapture 2>&1 \
  | grep -E "^test |test result|panicked|assert|rngame|ran out|games in" | head -60
