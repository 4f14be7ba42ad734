#!/usr/bin/env bash
# Builds, on the development machine, what run-r.sh carries into DEST
# (default .device/fill, git-ignored): main's CLI (final.xz) and
# integration tests (mtests.xz), two CLIs whose table, when it jumps to the
# largest that fits beside the old one, takes at most 40 GiB or 34 GiB
# (cap40.xz, cap34.xz), fb_scaling (issue 13's CPU scaling,
# ../2026-12-05l-prepared/), ../shared/mcc and ../shared/graphs (mcc.tar.xz,
# graphs.tar.xz) and BUILD.
# Usage, from the repository root:
#   bash benches/results/2026-12-05p-prepared/prepare.sh [DEST]
source "$(dirname "$0")/../2026-12-05c-prepared/build.sh" "${1:-.device/fill}"
pack_main
for gib in 40 34; do
    variant cap$gib src/explore/gpu/search.rs \
        "s/^                    .saturating_sub(current.bytes() + scratch(&self.largest));/                    .saturating_sub(current.bytes() + scratch(\&self.largest)).min($gib << 30);/"
done
bash benches/results/2026-12-05l-prepared/prepare.sh "$dest/fbscaling"
# All of ../shared/mcc (the MCC GPU tests run every net up to 10^7
# states) and ../shared/graphs (the livelock and SCC GPU tests).
rm -f "$dest/mcc3.tar.xz"
tar -C "$shared/.." -cJf "$dest/mcc.tar.xz" shared/mcc
tar -C "$shared/.." -cJf "$dest/graphs.tar.xz" shared/graphs
cat > "$dest/BUILD" <<END
final, mtests = main $(git rev-parse --short HEAD) (CLI, integration tests)
cap40, cap34 = its CLI whose jump to the largest table beside the old one takes at most 40 GiB, 34 GiB
fbscaling = $(cat "$dest/fbscaling/BUILD")
mcc.tar.xz, graphs.tar.xz = ../shared/mcc, ../shared/graphs
END
cat "$dest/BUILD"
du -sh "$dest"
