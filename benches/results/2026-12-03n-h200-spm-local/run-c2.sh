#!/usr/bin/env bash
# Device call C2 (session 34), right after call C on the same machine: ncu
# on 20 `spm_lift` launches of prop50_1k (launches 301-320) with the
# final build (`now` of call B), without flushing the caches or locking
# the clocks, so that the durations are a round's as the solver runs it.
# The output is summed by `uniq -c`; run-c2.txt holds it.
export LD_LIBRARY_PATH=.device/s33/lib WARPCHECK_KERNEL_CACHE=/tmp/kc
mkdir -p /tmp/g /tmp/bin
xz -dc .device/s34b/warpcheck.xz > /tmp/bin/now; chmod +x /tmp/bin/now
.device/s33/gen/parity_propagation paths 50 1000 > /tmp/g/p.pg
/tmp/bin/now parity /tmp/g/p.pg --engine gpu --solver spm --no-preprocessing -q > /dev/null
timeout 90 ncu --cache-control none --clock-control none \
  --metrics gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum \
  -k spm_lift --launch-skip 300 --launch-count 20 \
  /tmp/bin/now parity /tmp/g/p.pg --engine gpu --solver spm --no-preprocessing -q 2>&1 |
  grep -E "gpu__time_duration|warps_active|inst_executed" | awk '{print $1, $(NF)}' | sort | uniq -c | head -40
