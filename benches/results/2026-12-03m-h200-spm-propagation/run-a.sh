#!/usr/bin/env bash
# Device call A (session 33), issue 15: small progress measures on the
# propagation games of Bootsma's thesis (section 8.1), the games built so
# that SPM must lift most vertices many times, where a GPU should pay:
# `prop50_1k` and `tprop21` as the thesis sizes them, and larger ones of
# the same shapes (examples/parity_propagation.rs). Both tools' default
# preprocessing solves these games (all or most of them) before SPM
# starts, so SPM is compared with it off on both sides: ours
# `--no-preprocessing`, Oink's `--no-wcwc --no-single`; the defaults run
# once too. Every run of ours is checked: Even wins every vertex
# (Zielonka's algorithm on the CPU says so once per game), and one GPU run
# a game verifies its strategies (`--verify`).
# First the GPU tests of the new code paths.
# Carried: .device/s33 (build, test binary, generator, Oink 0a4a37f with
# Lace v1.4.1 and its Boost library).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/g
exec > >(tee "$out/run-a.txt") 2>&1
d=.device/s33
start=$(date +%s)
nvidia-smi -L; nproc; lscpu | grep -E 'Model name'; date -u; cat $d/BUILD
xz -dc $d/warpcheck.xz > /tmp/bin/warpcheck; xz -dc $d/tests.xz > /tmp/bin/tests; chmod +x /tmp/bin/*
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kc
WARPCHECK_BIN=/tmp/bin/warpcheck timeout 240 /tmp/bin/tests --include-ignored --test-threads=1 \
  parity_gpu::gpu_spm_equals_the_cpus_on_propagation_games parity_gpu::the_cli 2>&1 \
  | grep -E -A3 "^test |test result|panicked|assert|SKIPPED|ran out" | grep -v "^\s*$" | head -60
echo "tests took $(( $(date +%s) - start )) s"
g=$d/gen/parity_propagation
$g paths 50 1000 > /tmp/g/prop50_1k.pg
$g tree 22 2 > /tmp/g/tprop21.pg
$g paths 1000 1000 > /tmp/g/prop1000_1k.pg
$g tree 24 2 > /tmp/g/tprop23.pg
W=/tmp/bin/warpcheck
field() { python3 -c "import json,sys; r=json.load(sys.stdin); print(' '.join(str(r.get(k)) for k in sys.argv[1:]))" "$@"; }
# Kernels compiled once, before anything is timed.
$W parity /tmp/g/prop50_1k.pg --engine gpu --solver spm --no-preprocessing -q > /dev/null
for name in prop50_1k tprop21 prop1000_1k tprop23; do
  f=/tmp/g/$name.pg
  echo "== $name $(head -c 40 $f | head -1)"
  echo "reference: $($W --format json parity $f --engine cpu --solver zielonka -q | field vertices edges won_by_even solve_seconds)"
  echo "gpu spm whole, verified: $($W --format json parity $f --engine gpu --solver spm --no-preprocessing --verify -q | field won_by_even verified solve_seconds engine)"
  for round in 1 2 3; do
    echo "gpu spm whole: $($W --format json parity $f --engine gpu --solver spm --no-preprocessing -q | field won_by_even solve_seconds)"
    echo "oink spm whole: $($d/oink --spm --no-wcwc --no-single $f 2>&1 | grep -E 'total solving time|solved with' | tr '\n' ' ')"
  done
  echo "cpu spm whole: $(timeout 120 $W --format json parity $f --engine cpu --solver spm --no-preprocessing -q | field won_by_even solve_seconds)"
  echo "gpu spm whole, shortcuts: $($W --format json parity $f --engine gpu --solver spm --no-preprocessing --shortcuts -q | field won_by_even solve_seconds)"
  echo "gpu spm, default preprocessing: $($W --format json parity $f --engine gpu --solver spm -q | field won_by_even solve_seconds)"
  echo "auto, default: $($W --format json parity $f -q | field won_by_even solve_seconds prepare_seconds engine)"
  echo "oink spm, default preprocessing: $($d/oink --spm $f 2>&1 | grep -E 'total solving time|solved with|solved by' | tr '\n' ' ')"
  echo "gpu spm whole, debug log: $($W parity $f --engine gpu --solver spm --no-preprocessing -vv 2>&1 | grep -E 'DEBUG' | grep -i -E 'spm|measure|turn' | tail -3 | tr '\n' ' ')"
  echo "took $(( $(date +%s) - start )) s so far"
  (( $(date +%s) - start > 480 )) && break
done
date -u
