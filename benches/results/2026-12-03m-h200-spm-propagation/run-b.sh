#!/usr/bin/env bash
# Device call B (session 33), issue 15: where the GPU's SPM spends its time
# on the propagation games, and three variants side by side, in rounds:
#   a      call A's build (every array from the stream-ordered pool);
#   b8192  arrays of the game's size from cuMemAlloc (Device::upload_large,
#          alloc_large_filled), no copy of moves without self-loops to
#          simplify, and the set-up, finishing and launch kinds timed in the
#          debug log; the one block's lists of 8192 slots (as built in);
#   c2048  b with lists of 2048 slots;
#   d128   b, the one block taking over only when a launch raised at most
#          8192/64 = 128 vertices (instead of 8192/8 = 1024).
# Oink's SPM without preprocessing (--no-wcwc --no-single) twice a game.
# Carried: .device/s33 (call A's build, generator, Oink) and .device/s33b.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/g
exec > >(tee "$out/run-b.txt") 2>&1
d=.device/s33
start=$(date +%s)
nvidia-smi -L; nproc; lscpu | grep -E 'Model name'; date -u; cat $d/BUILD
xz -dc $d/warpcheck.xz > /tmp/bin/a
for v in b8192 c2048 d128; do xz -dc .device/s33b/$v.xz > /tmp/bin/$v; done
chmod +x /tmp/bin/*
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kc
g=$d/gen/parity_propagation
$g paths 50 1000 > /tmp/g/prop50_1k.pg
$g tree 22 2 > /tmp/g/tprop21.pg
$g paths 1000 1000 > /tmp/g/prop1000_1k.pg
$g tree 24 2 > /tmp/g/tprop23.pg
field() { python3 -c "import json,sys; r=json.load(sys.stdin); print(' '.join(str(r.get(k)) for k in sys.argv[1:]))" "$@"; }
variants="a b8192 c2048 d128"
for v in $variants; do /tmp/bin/$v parity /tmp/g/prop50_1k.pg --engine gpu --solver spm --no-preprocessing -q > /dev/null; done
for name in prop50_1k tprop21 prop1000_1k tprop23; do
  f=/tmp/g/$name.pg
  echo "== $name"
  for round in 1 2; do
    for v in $variants; do
      echo "$v: $(/tmp/bin/$v --format json parity $f --engine gpu --solver spm --no-preprocessing -q | field won_by_even solve_seconds load_seconds)"
    done
    echo "oink: $($d/oink --spm --no-wcwc --no-single $f 2>&1 | grep -E 'total solving time' | tr '\n' ' ')"
  done
  for v in b8192 c2048 d128; do
    echo "$v debug: $(/tmp/bin/$v parity $f --engine gpu --solver spm --no-preprocessing -vv 2>&1 | grep -E 'small progress measures \(GPU\)' | sed 's/.*DEBUG//')"
  done
  echo "took $(( $(date +%s) - start )) s so far"
done
date -u
