#!/usr/bin/env bash
# Device call B (session 24), issue 15: `--engine gpu --solver spm` (the
# GPU's preprocessing, then small progress measures on the GPU) beside
# Oink's `--spm` (its preprocessing, then SPM on one thread), on the
# games of 10^5 vertices and more of call A where the GPU takes part:
# one verified run with the size of the rest after the preprocessing
# (debug log), three timed runs; the CPU's `spm` once; Oink once, given
# 60 s. Solve times exclude parsing in both.
# Carried: .device/s24 (as call A, with the final build as warpcheck-final.xz).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/games /tmp/shared
exec > >(tee "$out/run-b.txt") 2>&1
d=.device/s24
nvidia-smi -L; nproc; date -u
xz -dc $d/warpcheck-final.xz > /tmp/bin/new && chmod +x /tmp/bin/new
tar -C /tmp/shared -xJf $d/parity.tar.xz
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kernel-cache
# (`wait` names its jobs: a bare one would also wait for the tee above.)
jobs=()
xz -dc $d/rngame-1M-100-1-3.pg.xz > /tmp/games/rngame-1M-100-1-3.pg & jobs+=($!)
$d/gen/stgame 1000000 2 6 2 6 > /tmp/games/stgame-1M-2-6-2-6.pg & jobs+=($!)
$d/gen/counter_qpt 500000 > /tmp/games/counter_qpt-500000.pg & jobs+=($!)
wait "${jobs[@]}"
ls -la /tmp/games; date -u
field() { grep -E "\"($1)\"" | tr -d '\n' | tr -s ' '; }
for g in /tmp/games/stgame-1M-2-6-2-6.pg /tmp/games/rngame-1M-100-1-3.pg /tmp/games/counter_qpt-500000.pg \
         /tmp/shared/parity/pgrand-200k-s11.pg.gz; do
  name=$(basename $g .gz); name=${name%.pg}
  echo "== $name $(date -u +%T)"
  r=$(RUST_LOG=warpcheck::parity=debug timeout 60 /tmp/bin/new --quiet --format json parity $g --engine gpu --solver spm --verify --timeout 30 2> /tmp/log.txt)
  echo "$name gpu spm verified: rc=$? $(echo "$r" | field 'solver|engine|solve_seconds|won_by_even|verified')"
  grep -E "open=|preprocessed=|GPU SPM|spm" /tmp/log.txt | sed 's/^[0-9T:.-]*Z //' | head -8
  for run in 1 2 3; do
    r=$(timeout 60 /tmp/bin/new --quiet --format json parity $g --engine gpu --solver spm --timeout 30)
    echo "$name gpu spm run $run: rc=$? $(echo "$r" | field 'solve_seconds|won_by_even')"
  done
  r=$(timeout 60 /tmp/bin/new --quiet --format json parity $g --engine cpu --solver spm --timeout 30)
  echo "$name cpu spm: rc=$? $(echo "$r" | field 'solve_seconds|won_by_even')"
  start=$(date +%s)
  echo "$name oink spm: $(timeout 65 $d/oink --spm -z 60 $g 2>&1 | grep -E 'parsing took|total solving time|preprocessing took|trivial cycle|self-loops|won by|solved' | tr -s ' ' | tr '\n' '|') wall $(( $(date +%s) - start )) s"
done
date -u
