#!/usr/bin/env bash
# Device call B (session 26), issue 15. (Call A, run-a.sh, ran the GPU
# tests, then spent its time making Oink's rngame games on the device:
# rngame takes about 10 s for 2*10^5 vertices, so the games are now made
# on the 2-core machine and carried.)
# 1. The GPU tests of parity on this session's build (the race test now
#    loads its kernels before it times the GPU; the CPU's SPM, their
#    reference, now lifts unreached vertices last).
# 2. Where `auto` stands against Oink's fastest on counter_qpt 500000 and
#    pgrand-200k-s11: parity_repeat (one process, solvers interleaved, no
#    parsing), 9 rounds of auto, pp, tangle, zielonka; Oink's zlk -w 16
#    and tl 5 runs each.
# 3. `--engine gpu --solver spm` against Oink's `--spm` and the CPU's SPM
#    on large generated games, with what the preprocessing leaves.
# Carried: .device/s25 (Oink 0a4a37f + Lace v1.4.1, its Boost library,
# ../shared/parity), .device/s25d (generators, rngame 1000000 100 1 3)
# and .device/s26b (this build, its test binary, parity_repeat,
# rngame 200000 100 1 3).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/shared /tmp/g
exec > >(tee "$out/run-b.txt") 2>&1
b=.device/s26b; o=.device/s25
start=$(date +%s)
nvidia-smi -L; nproc; date -u; cat $b/BUILD
for f in warpcheck tests parity_repeat; do xz -dc $b/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
tar -C /tmp/shared -xJf $o/parity.tar.xz
cp /tmp/bin/tests .device/tests
echo "== GPU tests: parity $(date -u +%T)"
WARPCHECK_KERNEL_CACHE=/tmp/kc WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/warpcheck \
  timeout 280 bash scripts/gpu_test.sh parity_gpu:: 2>&1 \
  | grep -E -A3 "^test |test result|panicked|assert|SKIPPED" | grep -v "^\s*$" | head -150
echo "tests took $(( $(date +%s) - start )) s"
export LD_LIBRARY_PATH=$o/lib WARPCHECK_KERNEL_CACHE=/tmp/kc
timeout 30 .device/s25d/gen/counter_qpt 500000 > /tmp/g/counter_qpt-500000.pg
zcat /tmp/shared/parity/pgrand-200k-s11.pg.gz > /tmp/g/pgrand-200k-s11.pg
for n in counter_qpt-500000 pgrand-200k-s11; do
  echo "== $n $(date -u +%T)"
  timeout 60 /tmp/bin/parity_repeat /tmp/g/$n.pg 9 auto pp tangle zielonka | sed "s/^/$n repeat: /"
  for s in "zlk -w 16" tl; do
    for run in 1 2 3 4 5; do
      echo "$n oink $s run $run: $(timeout 30 $o/oink --$s -z 25 /tmp/g/$n.pg 2>&1 | grep -E 'total solving time' | tr -s ' ')"
    done
  done
done
echo "repeats done after $(( $(date +%s) - start )) s"
xz -dc .device/s25d/rngame-1M-100-1-3.pg.xz > /tmp/g/rngame-1M-100-1-3.pg
xz -dc $b/rngame-200k-100-1-3.pg.xz > /tmp/g/rngame-200k-100-1-3.pg
timeout 30 .device/s25d/gen/stgame 1000000 2 6 2 6 > /tmp/g/stgame-1M-2-6-2-6.pg
timeout 30 .device/s25d/gen/counter_m 333333 > /tmp/g/counter_m-333333.pg
echo "games made after $(( $(date +%s) - start )) s"
field() { grep -E "\"($1)\"" | tr -d '\n' | tr -s ' '; }
for n in rngame-200k-100-1-3 rngame-1M-100-1-3 stgame-1M-2-6-2-6 counter_m-333333; do
  (( $(date +%s) - start > 480 )) && { echo "out of time before $n"; break; }
  p=/tmp/g/$n.pg
  echo "== $n $(date -u +%T)"
  r=$(RUST_LOG=warpcheck=debug timeout 25 /tmp/bin/warpcheck --quiet --format json parity $p --engine gpu --solver spm --timeout 20 2>/tmp/err)
  echo "$n gpu spm: rc=$? $(echo "$r" | field 'solve_seconds|won_by_even')"
  grep -E "small progress|preprocessing, then" /tmp/err | sed "s/^/$n debug: /"
  r=$(RUST_LOG=warpcheck=debug timeout 25 /tmp/bin/warpcheck --quiet --format json parity $p --engine cpu --solver spm --timeout 20 2>/tmp/err)
  echo "$n cpu spm: rc=$? $(echo "$r" | field 'solve_seconds|won_by_even')"
  grep -E "small progress|attractors solved" /tmp/err | sed "s/^/$n debug: /"
  echo "$n oink spm: $(timeout 30 $o/oink --spm -z 25 $p 2>&1 | grep -E 'total solving time|lifts|preprocess|solved' | tr -s ' ' | tr '\n' '|')"
done
echo "took $(( $(date +%s) - start )) s"; date -u
