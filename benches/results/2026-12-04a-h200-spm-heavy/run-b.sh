#!/usr/bin/env bash
# Device call B (session 35), issue 15: where call A's build (`after`)
# lost time on pgrand-200k-s11 and tc-10 (no heavy vertices there), and
# its one-block launches on prop50_1k. Builds, all on .device/s35:
#   before  27cfbba1
#   after   call A's build
#   v2      after, with spm_lift_queue's heavy vertices lifted by 4 warps
#           of their own while the other warps' tiles lift the rest
#   v3      v2 with LANE_COMPONENTS 0 (lanes take moves of their own only
#           where there are more moves than lanes)
#   v4      v2 with the tile-wide choice among moves of before (compare_from,
#           extreme_move) where lanes do not take moves of their own
# Rounds of each on prop50_1k, prop1000_1k (no preprocessing), pgrand-200k-s11,
# tc-10 and syntcomp-genbuf2 (usual preprocessing), and each one's debug line.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/g /tmp/shared
exec > >(tee "$out/run-b.txt") 2>&1
d=.device/s35
start=$(date +%s)
nvidia-smi -L; date -u
builds="before after v2 v3 v4"
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
run pgrand-200k-s11 2
run tc-10 2
run syntcomp-genbuf2 2
date -u
# ncu on five spm_lift launches of prop50_1k (301-305) with v2, caches and
# clocks as the solver has them: the launch's time against the SMs' active
# cycles (a launch that waits for one long warp has few).
timeout 120 ncu --cache-control none --clock-control none \
  --metrics gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_elapsed.max,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active \
  -k spm_lift --launch-skip 300 --launch-count 5 \
  /tmp/bin/v2 parity /tmp/g/prop50_1k.pg --engine gpu --solver spm --no-preprocessing -q 2>&1 |
  grep -E "gpu__time_duration|cycles_active|cycles_elapsed|inst_executed|warps_active" | awk '{print $1, $(NF)}'
date -u
