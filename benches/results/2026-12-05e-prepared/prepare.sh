#!/usr/bin/env bash
# Builds, on the development machine, what run-k.sh carries into DEST
# (default .device/nodes, git-ignored): main's CLI (final.xz) and three
# variants whose node table holds at most 2^22, 2^24 and 2^26 entries
# (32 MiB, 128 MiB, 512 MiB; main: 2^32, 32 GiB), the nets (mcc3.tar.xz
# from .device/next), and BUILD.
# Usage, from the repository root: bash benches/results/2026-12-05e-prepared/prepare.sh [DEST]
source "$(dirname "$0")/../2026-12-05c-prepared/build.sh" "${1:-.device/nodes}"
commit=$(git rev-parse --short HEAD)
pack final "$(cli "$root")"
for bits in 22 24 26; do
    variant nodes$bits src/explore/gpu/search.rs \
        "s/^const MAX_NODE_ENTRIES: u64 = (1 << 32) - NODE_BUCKET;/const MAX_NODE_ENTRIES: u64 = (1 << $bits) - NODE_BUCKET;/"
done
cp .device/next/mcc3.tar.xz "$dest/"
cat > "$dest/BUILD" <<END
final = main $commit's CLI; nodes22, nodes24, nodes26 = its CLI with MAX_NODE_ENTRIES (1 << 22, 24, 26) - NODE_BUCKET
mcc3.tar.xz = ../shared/mcc: oracles.tsv, AutoFlight-PT-05a, AutoFlight-PT-06a, Parking-PT-208, Philosophers-PT-000020
END
cat "$dest/BUILD"
du -sh "$dest"
