#!/usr/bin/env bash
# Device call on the final binaries: the GPU tests of prob and MEC, then
# egl-10-8 written again by egl_umb and checked by warpcheck (GPU and CPU,
# both properties) after the loading and conversion changes. Storm is not
# run again: it needs more than the device time left (storm.txt).
# Carried: .device/final (xz'd warpcheck, test binary and egl_umb),
# .device/shared (../shared/prob).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
here=benches/results/2026-12-02-h200-egl
work=/tmp/egl
mkdir -p "$out" /tmp/bin "$work"
exec > >(tee "$out/final.txt") 2>&1
nvidia-smi -L
for f in warpcheck egl_umb tests; do xz -dc .device/final/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
cp /tmp/bin/tests .device/tests

echo "== GPU tests"
WARPCHECK_SHARED=.device/shared WARPCHECK_BIN=/tmp/bin/warpcheck \
    timeout 130 bash scripts/gpu_test.sh prob::the_gpu mec::the_gpu 2>&1 \
    | grep -E "^test |test result|panicked|assert" | head -40

echo "== egl_umb 10 8"
/usr/bin/time -f "egl_umb: %e s wall, %M KB peak" /tmp/bin/egl_umb 10 8 $work/dir
/usr/bin/time -f "tar: %e s wall" tar cf $work/egl-10-8.umb -C $work/dir $(/tmp/bin/egl_umb members)
rm -rf $work/dir
umb=$work/egl-10-8.umb
reward='R{"messages_A_needs"}=? [ F "done" ]'
unfair='P=? [ F "unfairA" ]'
for run in "gpu|$reward" "gpu|$unfair" "cpu|$unfair" "cpu|$reward"; do
    echo "== warpcheck ${run%%|*}: ${run#*|}"
    python3 $here/side.py warpcheck /tmp/bin/warpcheck $umb "${run#*|}" "${run%%|*}"
done
