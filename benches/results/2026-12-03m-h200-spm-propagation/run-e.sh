#!/usr/bin/env bash
# Device call E (session 33), issue 15: a thread alone lifts a vertex whose
# measures have up to 4 components (`t1`), against the tiles of call D's
# final build ab8c532c (`d`, two lanes for two components), after ncu put
# most of prop50_1k's stalls at the tiles' ballots (call D). Rounds of
# both builds on prop50_1k and prop1000_1k (no preprocessing), and on
# syntcomp-genbuf2, pgrand-200k-s11 and tc-10 (usual preprocessing);
# Oink's SPM on prop50_1k. Then the parity GPU tests that compare the
# GPU's SPM with the CPU's, on `t1`.
# Carried: .device/s33 (generator, Oink), .device/s33d (d and
# ../shared/parity), .device/s33e (t1 and its test binary).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/g /tmp/shared
exec > >(tee "$out/run-e.txt") 2>&1
d=.device/s33
start=$(date +%s)
nvidia-smi -L; date -u; cat .device/s33e/BUILD
xz -dc .device/s33d/warpcheck.xz > /tmp/bin/d; xz -dc .device/s33e/warpcheck.xz > /tmp/bin/t1; xz -dc .device/s33e/tests.xz > /tmp/bin/tests
chmod +x /tmp/bin/*
tar -C /tmp/shared -xJf .device/s33d/parity.tar.xz
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kc
$d/gen/parity_propagation paths 50 1000 > /tmp/g/prop50_1k.pg
$d/gen/parity_propagation paths 1000 1000 > /tmp/g/prop1000_1k.pg
zcat /tmp/shared/parity/pgrand-200k-s11.pg.gz > /tmp/g/pgrand-200k-s11.pg
for n in tc-10 syntcomp-genbuf2; do cp /tmp/shared/parity/$n.pg /tmp/g/ 2>/dev/null || zcat /tmp/shared/parity/$n.pg.gz > /tmp/g/$n.pg; done
field() { python3 -c "import json,sys; r=json.load(sys.stdin); print(' '.join(str(r.get(k)) for k in sys.argv[1:]))" "$@"; }
for v in d t1; do /tmp/bin/$v parity /tmp/g/prop50_1k.pg --engine gpu --solver spm --no-preprocessing -q > /dev/null; done
run() { for round in $(seq $2); do for v in d t1; do echo "$v: $(/tmp/bin/$v --format json parity /tmp/g/$1.pg --engine gpu --solver spm $3 -q | field won_by_even solve_seconds)"; done; done; }
echo "== prop50_1k"; run prop50_1k 3 --no-preprocessing
echo "oink: $($d/oink --spm --no-wcwc --no-single /tmp/g/prop50_1k.pg 2>&1 | grep -E 'total solving time')"
echo "oink: $($d/oink --spm --no-wcwc --no-single /tmp/g/prop50_1k.pg 2>&1 | grep -E 'total solving time')"
echo "t1 debug: $(/tmp/bin/t1 parity /tmp/g/prop50_1k.pg --engine gpu --solver spm --no-preprocessing -vv 2>&1 | grep -E 'small progress measures \(GPU\)' | sed 's/.*DEBUG//')"
echo "== prop1000_1k"; run prop1000_1k 2 --no-preprocessing
echo "== syntcomp-genbuf2"; run syntcomp-genbuf2 2 ""
echo "== pgrand-200k-s11"; run pgrand-200k-s11 2 ""
echo "== tc-10"; run tc-10 1 ""
echo "bench took $(( $(date +%s) - start )) s"
left=$(( 300 - ($(date +%s) - start) ))
WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/t1 timeout $left /tmp/bin/tests --include-ignored --test-threads=1 \
  parity_gpu::gpu_spm_equals_the_cpus_on_propagation_games parity_gpu::gpu_spm_equals_the_cpus_on_small_random_games \
  parity_gpu::gpu_spm_equals_the_cpus_on_random_games_with_many_priorities parity_gpu::the_cli \
  parity_gpu::gpu_spm_gets_oinks_winners_and_the_cpus_solution_on_every_game parity_gpu::gpu_spm_equals_the_cpus_on_larger_random_games 2>&1 \
  | grep -E -A3 "^test |test result|panicked|assert|SKIPPED" | grep -v "^\s*$" | head -60
echo "took $(( $(date +%s) - start )) s"; date -u
