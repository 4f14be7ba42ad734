#!/usr/bin/env bash
# Builds, on the development machine, what run-k.sh carries into DEST
# (default .device/nodes, git-ignored): main's CLI (final.xz) and three
# variants whose node table holds at most 2^22, 2^24 and 2^26 entries
# (32 MiB, 128 MiB, 512 MiB; main: 2^32, 32 GiB), the nets (mcc3.tar.xz
# from .device/next), and BUILD.
# Usage, from the repository root: bash benches/results/2026-12-05e-prepared/prepare.sh [DEST]
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
dest=$(realpath -m "${1:-.device/nodes}")
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
mkdir -p "$dest"
work=$(mktemp -d)
trap 'git worktree remove --force "$work/main" 2>/dev/null || true; rm -rf "$work"' EXIT
pack() {
    strip -o "$work/$1" "$2"
    xz -T0 -c "$work/$1" > "$dest/$1.xz"
}
cli() {
    (cd "$1" && cargo build --release --quiet) >&2
    echo "$CARGO_TARGET_DIR/release/warpcheck"
}
commit=$(git rev-parse --short HEAD)
git worktree add -q --detach "$work/main" HEAD
pack final "$(cli "$work/main")"
for bits in 22 24 26; do
    git -C "$work/main" checkout -q -- src
    sed -i "s/^const MAX_NODE_ENTRIES: u64 = (1 << 32) - NODE_BUCKET;/const MAX_NODE_ENTRIES: u64 = (1 << $bits) - NODE_BUCKET;/" \
        "$work/main/src/explore/gpu/search.rs"
    git -C "$work/main" diff --quiet -- src && { echo "nodes$bits: nothing changed" >&2; exit 1; }
    pack nodes$bits "$(cli "$work/main")"
done
cp .device/next/mcc3.tar.xz "$dest/"
cat > "$dest/BUILD" <<END
final = main $commit's CLI; nodes22, nodes24, nodes26 = its CLI with MAX_NODE_ENTRIES (1 << 22, 24, 26) - NODE_BUCKET
mcc3.tar.xz = ../shared/mcc: oracles.tsv, AutoFlight-PT-05a, AutoFlight-PT-06a, Parking-PT-208, Philosophers-PT-000020
END
cat "$dest/BUILD"
du -sh "$dest"
