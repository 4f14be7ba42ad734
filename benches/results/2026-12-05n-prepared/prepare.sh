#!/usr/bin/env bash
# Builds, on the development machine, what run-p.sh (and call Q) carry
# into DEST (default .device/nodes, git-ignored): main's CLI (final.xz; also
# the CLI that the kernel trees of kv/ run with) and integration tests
# (mtests.xz), two CLIs whose node table is capped at 2^24 and 2^27 entries
# instead of 2^32 - 16 (nodes24.xz, nodes27.xz), kernel trees with 5 and 6
# search blocks an SM instead of 4 (kv/min5, kv/min6: 48 and 40 registers),
# fb_scaling (issue 13's CPU scaling, ../2026-12-05l-prepared/), the nets
# (mcc3.tar.xz) and BUILD.
# Usage, from the repository root:
#   bash benches/results/2026-12-05n-prepared/prepare.sh [DEST]
source "$(dirname "$0")/../2026-12-05c-prepared/build.sh" "${1:-.device/nodes}"
pack_main
for bits in 24 27; do
    variant nodes$bits src/explore/gpu/search.rs \
        "s/^const MAX_NODE_ENTRIES: u64 = (1 << 32) - NODE_BUCKET;/const MAX_NODE_ENTRIES: u64 = (1 << $bits) - NODE_BUCKET;/"
done
for blocks in 5 6; do
    mkdir -p "$dest/kv/min$blocks"
    cp -r kernels/. "$dest/kv/min$blocks/"
    sed -i "s|^#define MIN_BLOCKS (WARPS >= 32 ? 1 : 32 / WARPS)|#define MIN_BLOCKS ($((8 * blocks)) / WARPS)|" \
        "$dest/kv/min$blocks/explore/search.cu"
    grep -q "define MIN_BLOCKS ($((8 * blocks)) / WARPS)" "$dest/kv/min$blocks/explore/search.cu"
done
bash benches/results/2026-12-05l-prepared/prepare.sh "$dest/fbscaling"
tar -C "$shared/.." -cJf "$dest/mcc3.tar.xz" shared/mcc/oracles.tsv \
    shared/mcc/AutoFlight-PT-05a shared/mcc/AutoFlight-PT-06a \
    shared/mcc/Parking-PT-208 shared/mcc/Philosophers-PT-000020
cat > "$dest/BUILD" <<END
final, mtests = main $(git rev-parse --short HEAD) (CLI, integration tests)
nodes24, nodes27 = its CLI with MAX_NODE_ENTRIES (1 << 24) - 16 and (1 << 27) - 16
kv/min5, kv/min6 = its kernels with MIN_BLOCKS 40 / WARPS and 48 / WARPS (run with final)
fbscaling = $(cat "$dest/fbscaling/BUILD")
mcc3.tar.xz = ../shared/mcc: oracles.tsv, AutoFlight-PT-05a, AutoFlight-PT-06a, Parking-PT-208, Philosophers-PT-000020
END
cat "$dest/BUILD"
du -sh "$dest"
