#!/usr/bin/env bash
# Device call C (session 24), issue 15: the GPU tests of parity on the
# final build (the GPU's SPM must give exactly the solution of the CPU's,
# which now alternates between the players), then the CPU's `--solver
# spm` (alternating) beside Oink's `--spm` on the games of
# ../shared/parity where session 16 saw Oink's SPM take longest; three
# runs of ours, one of Oink's, 60 s each.
# Carried: .device/s24c (stripped xz'd test binary and CLI, Oink and its
# Boost library, ../shared/parity as parity.tar.xz).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/shared
exec > >(tee "$out/run-c.txt") 2>&1
d=.device/s24c
start=$(date +%s)
nvidia-smi -L; nproc; date -u
for f in warpcheck tests; do xz -dc $d/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
tar -C /tmp/shared -xJf $d/parity.tar.xz
cp /tmp/bin/tests .device/tests
env_tests=(WARPCHECK_KERNEL_CACHE=/tmp/kc WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/warpcheck)
echo "== GPU tests: parity $(date -u +%T)"
env "${env_tests[@]}" timeout 330 bash scripts/gpu_test.sh parity_gpu:: 2>&1 \
  | grep -E -A3 "^test |test result|panicked|assert|SKIPPED" | grep -v "^\s*$" | head -120
echo "tests took $(( $(date +%s) - start )) s"
export LD_LIBRARY_PATH=$d/lib
field() { grep -E "\"($1)\"" | tr -d '\n' | tr -s ' '; }
for n in pgrand-200k-s11.pg.gz tc-12.pg syntcomp-genbuf2.pg.gz tc-10.pg counter_dp-20.pg; do
  g=/tmp/shared/parity/$n
  for run in 1 2 3; do
    r=$(timeout 65 /tmp/bin/warpcheck --quiet --format json parity $g --engine cpu --solver spm --timeout 60)
    echo "$n cpu spm run $run: rc=$? $(echo "$r" | field 'solve_seconds|won_by_even')"
  done
  echo "$n oink spm: $(timeout 65 $d/oink --spm -z 60 $g 2>&1 | grep -E 'total solving time|lifts' | tr -s ' ' | tr '\n' '|')"
done
date -u
