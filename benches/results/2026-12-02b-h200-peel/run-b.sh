#!/usr/bin/env bash
# Device call B (issue 14): the peel and the stages of components.
# 1. The GPU tests of prob (the peel's and the stages' own among them) and
#    of MEC.
# 2. Every UMB row of ../shared/prob, before (f10b7a10) and after.
# 3. Blocks in a row (blocks.py: SCCs in a chain), before and after,
#    alternately.
# 4. egl-10-8 (../2026-12-02-h200-egl/egl_umb.rs) on the final binary.
# Carried: .device/peel (xz'd warpcheck-old, warpcheck, tests, egl_umb),
# .device/shared (../shared/prob).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
here=benches/results/2026-12-02b-h200-peel
side=benches/results/2026-12-02-h200-egl/side.py
work=/tmp/egl
mkdir -p "$out" /tmp/bin "$work"
exec > >(tee "$out/run-b.txt") 2>&1
nvidia-smi -L
for f in warpcheck-old warpcheck egl_umb tests; do
    xz -dc .device/peel/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f
done
cp /tmp/bin/tests .device/tests

echo "== GPU tests"
WARPCHECK_SHARED=.device/shared WARPCHECK_BIN=/tmp/bin/warpcheck \
    timeout 150 bash scripts/gpu_test.sh prob::the_gpu prob::a_peel prob::bounds_cut prob::stages \
    mec::the_gpu 2>&1 | grep -E "^test |test result|panicked|assert|SKIPPED|seed|state" | head -60

echo "== shared models, old then new"
timeout 75 python3 $here/models.py .device/shared/prob /tmp/bin/warpcheck-old /tmp/bin/warpcheck

echo "== blocks in a row"
for shape in "1000 1000" "10000 100"; do
    set -- $shape
    python3 $here/blocks.py $1 $2 $work/blocks
    for binary in warpcheck-old warpcheck warpcheck-old warpcheck; do
        echo "-- $binary: $1 blocks of $2"
        timeout 30 /tmp/bin/$binary -vv prob $work/blocks.tra --timeout 15 --property 'P=? [ F "goal" ]' \
            --engine gpu --precision 1e-6 --relative 2>&1 | grep -E "P=\?|GPU (iteration|stages|peel)|time:" | cut -c1-400
    done
done
rm -f $work/blocks.*

echo "== egl_umb 10 8"
/tmp/bin/egl_umb 10 8 $work/dir
tar cf $work/egl-10-8.umb -C $work/dir $(/tmp/bin/egl_umb members)
rm -rf $work/dir
for text in 'R{"messages_A_needs"}=? [ F "done" ]' 'P=? [ F "unfairA" ]'; do
    echo "== warpcheck gpu: $text"
    python3 $side warpcheck /tmp/bin/warpcheck $work/egl-10-8.umb "$text" gpu
done
