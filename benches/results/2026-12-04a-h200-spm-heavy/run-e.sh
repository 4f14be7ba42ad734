#!/usr/bin/env bash
# Device call E (session 35), issue 15: every parity GPU test on the
# binaries of the last review commit (dd9d095b: its kernel's PTX is call
# D's, the host looks for heavy vertices in parallel at every size), and
# one --verify run of prop50_1k. Carried: .device/s35 (final, tests,
# generator, ../shared/parity).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/g /tmp/shared
exec > >(tee "$out/run-e.txt") 2>&1
d=.device/s35
start=$(date +%s)
nvidia-smi -L; date -u
for v in final tests; do xz -dc $d/$v.xz > /tmp/bin/$v; done
chmod +x /tmp/bin/*
tar -C /tmp/shared -xJf $d/parity.tar.xz
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kc
$d/gen/parity_propagation paths 50 1000 > /tmp/g/prop50_1k.pg
for round in 1 2 3; do
  /tmp/bin/final --format json parity /tmp/g/prop50_1k.pg --engine gpu --solver spm --no-preprocessing --verify -q |
    python3 -c "import json,sys; r=json.load(sys.stdin); print('final:', r['won_by_even'], r['verified'], r['solve_seconds'])"
done
WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/final timeout $(( 560 - ($(date +%s) - start) )) /tmp/bin/tests --include-ignored --test-threads=1 parity_gpu:: > /tmp/tests.txt 2>&1
grep -E "^test |test result" /tmp/tests.txt
grep -E -A12 "^---- |panicked" /tmp/tests.txt | head -60
cp /tmp/tests.txt "$out/tests-e.txt"
echo "all took $(( $(date +%s) - start )) s"
