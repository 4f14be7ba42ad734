#!/usr/bin/env bash
# Device call (issue 14): the GPU's peel of the classes that reach no cycle.
# 1. The GPU tests of prob (the peel's own tests among them) and of MEC
#    (whose deaths share the changed waves in one block).
# 2. egl-10-8 written by egl_umb (../2026-12-02-h200-egl/), then
#    `warpcheck prob --engine gpu` before (f10b7a10) and after this change,
#    alternately, on both properties of the earlier runs.
# Carried: .device/peel (xz'd warpcheck-old, warpcheck, tests, egl_umb),
# .device/shared (../shared/prob).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
side=benches/results/2026-12-02-h200-egl/side.py
work=/tmp/egl
mkdir -p "$out" /tmp/bin "$work"
exec > >(tee "$out/run.txt") 2>&1
nvidia-smi -L
for f in warpcheck-old warpcheck egl_umb tests; do
    xz -dc .device/peel/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f
done
cp /tmp/bin/tests .device/tests

echo "== GPU tests"
WARPCHECK_SHARED=.device/shared WARPCHECK_BIN=/tmp/bin/warpcheck \
    timeout 150 bash scripts/gpu_test.sh prob::the_gpu prob::a_peel prob::bounds_cut mec::the_gpu 2>&1 \
    | grep -E "^test |test result|panicked|assert|SKIPPED" | head -60

echo "== egl_umb 10 8"
/usr/bin/time -f "egl_umb: %e s wall, %M KB peak" /tmp/bin/egl_umb 10 8 $work/dir
/usr/bin/time -f "tar: %e s wall" tar cf $work/egl-10-8.umb -C $work/dir $(/tmp/bin/egl_umb members)
rm -rf $work/dir
umb=$work/egl-10-8.umb
reward='R{"messages_A_needs"}=? [ F "done" ]'
unfair='P=? [ F "unfairA" ]'
for text in "$reward" "$unfair"; do
    for binary in warpcheck-old warpcheck; do
        echo "== $binary gpu: $text"
        python3 $side warpcheck /tmp/bin/$binary $umb "$text" gpu
    done
done

echo "== shared models, old then new"
timeout 75 python3 benches/results/2026-12-02b-h200-peel/models.py .device/shared/prob \
    /tmp/bin/warpcheck-old /tmp/bin/warpcheck
