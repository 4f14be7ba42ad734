#!/usr/bin/env bash
# Prepared in session 40, NOT YET RUN (call F, its first form, got no answer
# from the device): verify the branch jump-grows-at-spill before it lands.
# Build on the branch (11bd8cc4 or later): strip and xz its CLI (`jump`) and
# its integration test binary (`jtests`) into .device/sNN, main's CLI as
# `final`, and mcc3.tar.xz (shared/mcc's AutoFlight-PT-05a and -06a,
# Parking-PT-208, Philosophers-PT-000020 with their oracles); write BUILD;
# carry .device/sNN and set D=.device/sNN. The kernels are the binaries'
# own (no WARPCHECK_KERNEL_DIR).
# (1) the three nets under trees without traces, main then the branch;
# (2) AutoFlight-PT-06a plain, main then the branch (prefetch_home);
# (3) Parking-PT-208 with traces on the branch; (4) the branch's GPU tests of
# every storage and frontier, in the time left (about 315 s).
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
log=next-g
source "$here/common.sh"
for model in AutoFlight-PT-06a Parking-PT-208 Philosophers-PT-000020; do
  for b in main branch; do run $b tree no-trace $model; done
  echo "at $(( $(date +%s) - start )) s"
done
for b in main branch; do run $b plain no-trace AutoFlight-PT-06a; done
run branch tree traces Parking-PT-208
gpu_tests branch
echo "took $(( $(date +%s) - start )) s"; date -u
