#!/usr/bin/env bash
# Device call A (session 26), issue 15. First the GPU tests of parity on
# the final binaries of session 25 (4da85791), which no device run had
# checked. Then `--engine gpu --solver spm` against Oink's `--spm` (and
# the CPU's alternating SPM) on large generated games, to see where SPM
# propagates most: how many vertices the preprocessing leaves, how many
# measures the GPU raises, how many lifts Oink makes.
# Carried: .device/s25 (Oink 0a4a37f + Lace v1.4.1 and its Boost library,
# generators, ../shared/parity), .device/s25d (generators, rngame-1M) and
# .device/s26 (build 4da85791, its test binary, Oink's rngame).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/shared /tmp/g
exec > >(tee "$out/run-a.txt") 2>&1
start=$(date +%s)
nvidia-smi -L; nproc; date -u; cat .device/s26/BUILD
for f in warpcheck tests; do xz -dc .device/s26/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
tar -C /tmp/shared -xJf .device/s25/parity.tar.xz
cp /tmp/bin/tests .device/tests
echo "== GPU tests: parity $(date -u +%T)"
WARPCHECK_KERNEL_CACHE=/tmp/kc WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/warpcheck \
  timeout 300 bash scripts/gpu_test.sh parity_gpu:: 2>&1 \
  | grep -E -A3 "^test |test result|panicked|assert|SKIPPED" | grep -v "^\s*$" | head -150
echo "tests took $(( $(date +%s) - start )) s"
g=.device/s25d/gen
xz -dc .device/s25d/rngame-1M-100-1-3.pg.xz > /tmp/g/rngame-1M-100-1-3.pg
.device/s26/rngame 200000 100 1 3 > /tmp/g/rngame-200k-100-1-3.pg
.device/s26/rngame 1000000 8 1 3 > /tmp/g/rngame-1M-8-1-3.pg
$g/stgame 1000000 2 6 2 6 > /tmp/g/stgame-1M-2-6-2-6.pg
$g/counter_m 333333 > /tmp/g/counter_m-333333.pg
export LD_LIBRARY_PATH=.device/s25/lib WARPCHECK_KERNEL_CACHE=/tmp/kc
field() { grep -E "\"($1)\"" | tr -d '\n' | tr -s ' '; }
for n in rngame-200k-100-1-3 rngame-1M-8-1-3 rngame-1M-100-1-3 stgame-1M-2-6-2-6 counter_m-333333; do
  p=/tmp/g/$n.pg
  echo "== $n $(date -u +%T)"
  r=$(RUST_LOG=warpcheck=debug timeout 25 /tmp/bin/warpcheck --quiet --format json parity $p --engine gpu --solver spm --timeout 20 2>/tmp/err)
  echo "$n gpu spm run 1: rc=$? $(echo "$r" | field 'solve_seconds|won_by_even')"
  grep -E "small progress|preprocessing, then" /tmp/err | sed "s/^/$n debug: /"
  r=$(timeout 25 /tmp/bin/warpcheck --quiet --format json parity $p --engine gpu --solver spm --timeout 20)
  echo "$n gpu spm run 2: rc=$? $(echo "$r" | field 'solve_seconds|won_by_even')"
  r=$(timeout 25 /tmp/bin/warpcheck --quiet --format json parity $p --engine cpu --solver spm --timeout 20)
  echo "$n cpu spm: rc=$? $(echo "$r" | field 'solve_seconds|won_by_even')"
  echo "$n oink spm: $(timeout 45 .device/s25/oink --spm -z 40 $p 2>&1 | grep -E 'total solving time|lifts|preprocess|solved' | tr -s ' ' | tr '\n' '|')"
  (( $(date +%s) - start > 540 )) && { echo "out of time"; break; }
done
echo "took $(( $(date +%s) - start )) s"; date -u
