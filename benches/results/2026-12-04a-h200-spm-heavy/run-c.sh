#!/usr/bin/env bash
# Device call C (session 35), issue 15: the one-block launches on
# pgrand-200k-s11 and tc-10 (no heavy vertices there) after call B.
# Builds, all on .device/s35:
#   before  27cfbba1
#   v3b     lanes take moves of their own only where a vertex has more
#           moves than its tile has lanes (call B's v3, the rule written
#           without LANE_COMPONENTS)
#   v6      v3b with spm_lift_queue's tiles lifting heavy vertices too
#           (no warps of their own: a smaller kernel; v6.patch)
#   v7      v6 with the tile-wide choice of before (compare_from,
#           extreme_move) where lanes do not take moves of their own
# Rounds of each on prop50_1k, prop1000_1k (no preprocessing), pgrand-200k-s11,
# tc-10 and syntcomp-genbuf2 (usual preprocessing), and each one's debug line.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/g /tmp/shared
exec > >(tee "$out/run-c.txt") 2>&1
d=.device/s35
start=$(date +%s)
nvidia-smi -L; date -u
builds="before v3b v6 v7"
for v in $builds; do xz -dc $d/$v.xz > /tmp/bin/$v; done
chmod +x /tmp/bin/*
tar -C /tmp/shared -xJf $d/parity.tar.xz
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kc
g=$d/gen/parity_propagation
$g paths 50 1000 > /tmp/g/prop50_1k.pg
$g paths 1000 1000 > /tmp/g/prop1000_1k.pg
zcat /tmp/shared/parity/pgrand-200k-s11.pg.gz > /tmp/g/pgrand-200k-s11.pg
zcat /tmp/shared/parity/syntcomp-genbuf2.pg.gz > /tmp/g/syntcomp-genbuf2.pg
cp /tmp/shared/parity/tc-10.pg /tmp/g/
field() { python3 -c "import json,sys; r=json.load(sys.stdin); print(' '.join(str(r.get(k)) for k in sys.argv[1:]))" "$@"; }
debug() { "$@" -vv 2>&1 | grep -E 'DEBUG warpcheck::parity::gpu: small' | sed 's/.*DEBUG//' | tr '\n' ' '; }
for v in $builds; do /tmp/bin/$v parity /tmp/g/prop50_1k.pg --engine gpu --solver spm --no-preprocessing -q > /dev/null; done
run() { # name rounds flags...
  local name=$1 rounds=$2; shift 2
  local f=/tmp/g/$name.pg
  echo "== $name"
  for round in $(seq $rounds); do
    for v in $builds; do echo "$v: $(/tmp/bin/$v --format json parity $f --engine gpu --solver spm "$@" -q | field won_by_even solve_seconds)"; done
  done
  for v in $builds; do echo "$v debug: $(debug /tmp/bin/$v parity $f --engine gpu --solver spm "$@")"; done
  echo "took $(( $(date +%s) - start )) s so far"
}
run prop50_1k 3 --no-preprocessing
run prop1000_1k 1 --no-preprocessing
run pgrand-200k-s11 3
run tc-10 2
run syntcomp-genbuf2 2
date -u
