#!/usr/bin/env bash
# Device call D (session 26), issue 15: the GPU tests of parity on the
# session's final build (Zielonka's algorithm in auto's race from 4
# threads, shortcuts), then `--engine auto` against Oink's fastest on the
# two games where auto was closest to Oink: 7 rounds of ours and Oink's.
# Carried: .device/s26e (the build, its test binary, Oink 0a4a37f + Lace
# v1.4.1 and its Boost library, the counter_qpt generator,
# ../shared/parity).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/shared /tmp/g
exec > >(tee "$out/run-d.txt") 2>&1
d=.device/s26e
start=$(date +%s)
nvidia-smi -L; nproc; date -u; cat $d/BUILD
for f in warpcheck tests; do xz -dc $d/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
tar -C /tmp/shared -xJf $d/parity.tar.xz
cp /tmp/bin/tests .device/tests
echo "== GPU tests: parity $(date -u +%T)"
WARPCHECK_KERNEL_CACHE=/tmp/kc WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/warpcheck \
  timeout 240 bash scripts/gpu_test.sh parity_gpu:: 2>&1 \
  | grep -E -A3 "^test |test result|panicked|assert|SKIPPED" | grep -v "^\s*$" | head -150
echo "tests took $(( $(date +%s) - start )) s"
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kc
timeout 30 $d/counter_qpt 500000 > /tmp/g/counter_qpt-500000.pg
zcat /tmp/shared/parity/pgrand-200k-s11.pg.gz > /tmp/g/pgrand-200k-s11.pg
field() { grep -E "\"($1)\"" | tr -d '\n' | tr -s ' '; }
for name in counter_qpt-500000 pgrand-200k-s11; do
  g=/tmp/g/$name.pg
  echo "== $name $(date -u +%T)"
  for run in 1 2 3 4 5 6 7; do
    r=$(timeout 60 /tmp/bin/warpcheck --quiet --format json parity $g --verify)
    echo "$name new run $run: rc=$? $(echo "$r" | field 'won_by_even|solver|race_winner|verified|solve_seconds')"
    echo "$name oink zlk -w 16 run $run: $(timeout 60 $d/oink --zlk -w 16 -z 50 $g 2>&1 | grep -E 'total solving time' | tr -s ' ')"
  done
done
echo "took $(( $(date +%s) - start )) s"; date -u
