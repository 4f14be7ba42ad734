#!/usr/bin/env bash
# Builds, on the development machine, what run-scaling.sh carries into
# DEST (default .device/scaling, git-ignored): main's CLI (final.xz,
# stripped), the nets (mcc3.tar.xz: ../shared/mcc's oracles.tsv and its
# three nets of 10^9 states or more, with AutoFlight-PT-05a) and BUILD.
# The generated philosophers of the capacity runs are written on the device
# by the CLI itself (`warpcheck generate`).
# Usage, from the repository root: bash benches/results/2026-12-05g-prepared/prepare.sh [DEST]
source "$(dirname "$0")/../2026-12-05c-prepared/build.sh" "${1:-.device/scaling}"
commit=$(git rev-parse --short HEAD)
pack final "$(cli "$root")"
tar -C "$shared/.." -cJf "$dest/mcc3.tar.xz" shared/mcc/oracles.tsv \
    shared/mcc/AutoFlight-PT-05a shared/mcc/AutoFlight-PT-06a \
    shared/mcc/Parking-PT-208 shared/mcc/Philosophers-PT-000020
cat > "$dest/BUILD" <<END
final = main $commit (CLI)
mcc3.tar.xz = ../shared/mcc: oracles.tsv, AutoFlight-PT-05a, AutoFlight-PT-06a, Parking-PT-208, Philosophers-PT-000020
END
cat "$dest/BUILD"
du -sh "$dest"
