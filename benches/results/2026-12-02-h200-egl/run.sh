#!/usr/bin/env bash
# Device call: egl-10-8 (QVBS egl, N=10, L=8: 317,718,526 states) written by
# egl_umb as an uncompressed UMB archive on the GPU machine, then warpcheck
# (GPU and CPU) and Storm 2.0 (stormpy, sound and default methods) load it
# and check the two properties, in one run. Storm gets what is left of the
# call; a run stopped by `timeout` is a lower bound on its time.
# Carried: .device/egl (xz'd warpcheck and egl_umb), .device/wheels (stormpy).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
here=benches/results/2026-12-02-h200-egl
work=/tmp/egl
mkdir -p "$out" /tmp/bin "$work"
exec > >(tee "$out/run.txt") 2>&1
start=$(date +%s)
left() { echo $(( ${1:-560} - ($(date +%s) - start) )); }
nvidia-smi -L; nproc; free -g | head -2; df -h /tmp | tail -1
for f in warpcheck egl_umb; do xz -dc .device/egl/$f.xz > /tmp/bin/$f && chmod +x /tmp/bin/$f; done
( source scripts/stormpy_env.sh && stormpy_python .device/wheels /tmp/storm \
    && echo "$python" > /tmp/storm/python ) > /tmp/storm-install.txt 2>&1 &
installing=$!

echo "== egl_umb 10 8"
/usr/bin/time -f "egl_umb: %e s wall, %M KB peak" /tmp/bin/egl_umb 10 8 $work/dir
/usr/bin/time -f "tar: %e s wall" tar cf $work/egl-10-8.umb -C $work/dir $(/tmp/bin/egl_umb members)
rm -rf $work/dir
ls -la $work/egl-10-8.umb
umb=$work/egl-10-8.umb
reward='R{"messages_A_needs"}=? [ F "done" ]'
unfair='P=? [ F "unfairA" ]'

for property in "$reward" "$unfair"; do
    echo "== warpcheck: $property"
    for engine in gpu gpu cpu; do
        python3 $here/side.py warpcheck /tmp/bin/warpcheck $umb "$property" $engine
    done
done

wait $installing; cat /tmp/storm-install.txt
python=$(cat /tmp/storm/python)
for method in sound default; do
    echo "== storm $method: $reward ($(left) s left)"
    timeout "$(left)" "$python" $here/side.py storm $umb "$reward" $method
    echo "exit $?"
    [[ $(left) -gt 60 ]] || break
done
echo "elapsed $(( $(date +%s) - start )) s"
