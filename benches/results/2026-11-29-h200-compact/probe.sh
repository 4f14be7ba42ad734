#!/usr/bin/env bash
# Where compact roots lose time: AutoFlight-PT-06a as trees, no traces,
# text reports with growth times: the build before, the build after, and
# the build after with kernel variants from .device/kv (WARPCHECK_KERNEL_DIR).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/probe-out}
mkdir -p "$out"
exec > >(tee "$out/probe.txt") 2>&1
net=.device/mcc/AutoFlight-PT-06a/model.pnml
run() { echo "== $*"; timeout 60 "$@" check --engine gpu --storage tree --no-trace -v "$net" 2>&1 | grep -E "search|hash table|grown|states/s|tree|elapsed|table:" ; }
run .device/old/warpcheck
run .device/new/warpcheck
for v in .device/kv/*; do WARPCHECK_KERNEL_DIR=$v run .device/new/warpcheck; done
run .device/old/warpcheck
run .device/new/warpcheck
