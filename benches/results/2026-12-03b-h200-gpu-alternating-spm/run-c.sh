#!/usr/bin/env bash
# Device call C (session 25), issue 15: alternating SPM on the GPU.
# First the GPU tests of parity on the new build (the GPU's SPM must give
# exactly the solution of the CPU's). Then `--engine gpu --solver spm`
# (the GPU's preprocessing, then alternating SPM on the GPU) of the new
# build, twice, and of the old one (5d3c51b1: Even's measures, then
# Odd's) once, beside Oink's `--spm` once and the CPU's alternating SPM
# once, on the games of ../shared/parity where Oink's SPM lifts most.
# One run of the new build with debug logs (lifts, who finished first).
# Carried: .device/s25 (old build, Oink and its Boost library,
# ../shared/parity as parity.tar.xz) and .device/s25c (new build, tests).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/shared
exec > >(tee "$out/run-c.txt") 2>&1
d=.device/s25
start=$(date +%s)
nvidia-smi -L; nproc; date -u
xz -dc $d/warpcheck.xz > /tmp/bin/old && chmod +x /tmp/bin/old
for f in warpcheck tests; do xz -dc .device/s25c/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
tar -C /tmp/shared -xJf $d/parity.tar.xz
cp /tmp/bin/tests .device/tests
env_tests=(WARPCHECK_KERNEL_CACHE=/tmp/kc WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/warpcheck)
echo "== GPU tests: parity $(date -u +%T)"
env "${env_tests[@]}" timeout 300 bash scripts/gpu_test.sh parity_gpu:: 2>&1 \
  | grep -E -A3 "^test |test result|panicked|assert|SKIPPED|spm on the" | grep -v "^\s*$" | head -150
echo "tests took $(( $(date +%s) - start )) s"
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kc
field() { grep -E "\"($1)\"" | tr -d '\n' | tr -s ' '; }
for n in syntcomp-genbuf2.pg.gz tc-10.pg pgrand-200k-s11.pg.gz tc-12.pg counter_dp-20.pg; do
  g=/tmp/shared/parity/$n
  echo "== $n $(date -u +%T)"
  for run in 1 2; do
    r=$(timeout 25 /tmp/bin/warpcheck --quiet --format json parity $g --engine gpu --solver spm --timeout 20)
    echo "$n new gpu spm run $run: rc=$? $(echo "$r" | field 'solve_seconds|won_by_even')"
  done
  RUST_LOG=warpcheck=debug timeout 25 /tmp/bin/warpcheck --quiet parity $g --engine gpu --solver spm --timeout 20 2>&1 \
    | grep -E "small progress|preprocessing, then" | sed "s/^/$n debug: /"
  r=$(timeout 25 /tmp/bin/old --quiet --format json parity $g --engine gpu --solver spm --timeout 20)
  echo "$n old gpu spm: rc=$? $(echo "$r" | field 'solve_seconds|won_by_even')"
  r=$(timeout 25 /tmp/bin/warpcheck --quiet --format json parity $g --engine cpu --solver spm --timeout 20)
  echo "$n new cpu spm: rc=$? $(echo "$r" | field 'solve_seconds|won_by_even')"
  echo "$n oink spm: $(timeout 35 $d/oink --spm -z 30 $g 2>&1 | grep -E 'total solving time|lifts' | tr -s ' ' | tr '\n' '|')"
  (( $(date +%s) - start > 540 )) && { echo "out of time"; break; }
done
echo "took $(( $(date +%s) - start )) s"; date -u
