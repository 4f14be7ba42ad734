#!/usr/bin/env bash
# pacman-100 on the GPU machine (issue 14, and issue 13's MEC), in four calls
# to one warm machine (it goes back after 30 s idle, so each call follows the
# last at once; what travels, the repository with its .git included, stays
# under 64 MiB a call, so pack.py's files come in three folders):
#   run.sh stage .device/pa           a part of the packed model
#   run.sh stage .device/pb           another, and warpcheck.xz (the binary)
#   run.sh unpack .device/pc          the last; unpack.py rebuilds the UMB
#                                     archive, checking every member's sha256
#   run.sh bench .device/wheels       stormpy from its wheels (the large one
#                                     as .whl.tar.xz); side16.py times
#                                     warpcheck and Storm one after the other
#   run.sh bench2 .device/wheels      the same for side16b.py: three builds
#                                     of warpcheck (warpcheck-before.xz and
#                                     warpcheck-merged.xz beside warpcheck.xz
#                                     in .device/pb) and Storm
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/pacman-out}
mkdir -p "$out" /tmp/bin
exec > >(tee -a "$out/run-$1.txt") 2>&1
nvidia-smi -L; nproc; date -u
case $1 in
stage) bash benches/results/2026-11-25c-h100-pacman/stage.sh "$2" ;;
unpack)
    bash benches/results/2026-11-25c-h100-pacman/stage.sh "$2"
    mv /tmp/stage/warpcheck* /tmp/bin/ && chmod +x /tmp/bin/warpcheck* || exit 1
    start=$(date +%s)
    python3 benches/results/2026-11-25c-h100-pacman/unpack.py /tmp/stage /tmp/pacman-100.umb || exit 1
    echo "unpacked in $(( $(date +%s) - start )) s"; rm -rf /tmp/stage
    ls -la /tmp/pacman-100.umb ;;
bench)
    source scripts/stormpy_env.sh
    stormpy_python "$2" /tmp/storm
    timeout 540 "$python" benches/results/2026-11-25c-h100-pacman/side16.py /tmp/bin/warpcheck /tmp/pacman-100.umb "$out"
    echo "exit $?" ;;
bench2)
    source scripts/stormpy_env.sh
    stormpy_python "$2" /tmp/storm
    b=/tmp/bin/warpcheck
    timeout 540 "$python" benches/results/2026-11-25c-h100-pacman/side16b.py /tmp/pacman-100.umb \
        after=$b before=$b-before merged=$b-merged after=$b merged=$b-merged
    echo "exit $?" ;;
esac
date -u
