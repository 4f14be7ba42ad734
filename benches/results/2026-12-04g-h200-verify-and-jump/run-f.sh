#!/usr/bin/env bash
# Call F (session 40): the branch jump-grows-at-spill at 244f9911 (`jump`
# CLI, `jtests` test binary: a frontier longer than a growing table's queue
# moves only where spills are walked) with two kernel trees swapped in by
# WARPCHECK_KERNEL_DIR: kv/pft2 (244f9911's: prefetch_home and
# tree-words-2) and kv/dp (+ a warp claims two queue chunks at once and
# L2 fetches the second's slots while it expands the first); main's CLI
# (`final`, a5dc0296) beside them.
# (1) the three nets under trees without traces, main then each kernel tree;
# (2) AutoFlight-PT-06a plain, pft2 against dp (dp touches plain);
# (3) dp if its three nets take at least 1 % less than pft2's, else pft2:
# Parking-PT-208 with traces, then the GPU tests of every storage and
# frontier on it, in the time left.
# Carry .device/s40 and set D=.device/s40.
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
log=run-f
source "$here/common.sh"
for model in AutoFlight-PT-06a Parking-PT-208 Philosophers-PT-000020; do
  for k in main pft2 dp; do run $k tree no-trace $model; done
  echo "at $(( $(date +%s) - start )) s"
done | tee /tmp/trees.txt
for k in pft2 dp; do run $k plain no-trace AutoFlight-PT-06a; done
best=$(awk -F'\t' '$1 != "main" {t[$1]+=($5>0 ? $6 : 1e9)} END {print (t["dp"] <= 0.99 * t["pft2"]) ? "dp" : "pft2"}' <(grep -v '^at ' /tmp/trees.txt))
echo "chosen: $best"
run $best tree traces Parking-PT-208
gpu_tests $best
echo "took $(( $(date +%s) - start )) s"; date -u
