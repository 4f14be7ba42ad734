#!/usr/bin/env bash
# Builds, on the development machine, everything the prepared device calls
# of this folder and of 2026-12-04g-h200-verify-and-jump carry, into DEST
# (default .device/next, git-ignored): stripped, xz-compressed binaries, the
# kernel trees they swap in, the nets, and BUILD (what each file is).
#
#   final.xz          main's CLI
#   jump.xz, jtests.xz   jump-grows-at-spill's CLI and integration-test binary
#   jump8.xz, jump16.xz  its CLI with GROWING_QUEUE_SHARE 8 and 16
#   kv/pft2, kv/dp    its kernels, and them with decode-prefetch.patch
#   ranks.xz, rtests.xz  ranks' CLI and integration-test binary
#   mcc3.tar.xz       shared/mcc's AutoFlight-PT-05a and -06a, Parking-PT-208,
#                     Philosophers-PT-000020 and oracles.tsv
#
# Each branch is built in a throw-away worktree of its tip (uncommitted
# changes elsewhere are not taken), with one shared target directory.
# Usage, from the repository root: bash benches/results/2026-12-05a-prepared/prepare.sh [DEST]
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
dest=$(realpath -m "${1:-.device/next}")
here=benches/results/2026-12-05a-prepared
patches=benches/results/2026-12-04g-h200-verify-and-jump
shared=$(realpath ../shared)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
mkdir -p "$dest/kv"
: > "$dest/BUILD"
work=$(mktemp -d)
mkdir "$work/trees" "$work/bin"
trap 'for w in "$work"/trees/*; do git worktree remove --force "$w" 2>/dev/null || true; done; rm -rf "$work"' EXIT

# pack NAME FILE: strip FILE into DEST/NAME.xz.
pack() {
    strip -o "$work/bin/$1" "$2"
    xz -T0 -c "$work/bin/$1" > "$dest/$1.xz"
}
# tree BRANCH: a worktree of BRANCH's tip, printed.
tree() {
    git worktree add -q --detach "$work/trees/$1" "$1"
    echo "$work/trees/$1"
}
# build DIR: the CLI (printed) of the tree in DIR.
build_cli() {
    (cd "$1" && cargo build --release --quiet) >&2
    echo "$CARGO_TARGET_DIR/release/warpcheck"
}
# build_tests DIR: the integration-test binary (printed) of the tree in DIR.
build_tests() {
    (cd "$1" && cargo test --release --no-run --test it --message-format=json 2>/dev/null) |
        python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "it" and m.get("executable"):
        print(m["executable"])' | tail -1
}

main=$(tree main)
pack final "$(build_cli "$main")"
echo "final = main $(git rev-parse --short main) (CLI)" >> "$dest/BUILD"

jump=$(tree jump-grows-at-spill)
pack jump "$(build_cli "$jump")"
pack jtests "$(build_tests "$jump")"
for share in 8 16; do
    sed -i "s/^const GROWING_QUEUE_SHARE: u64 = [0-9]*;/const GROWING_QUEUE_SHARE: u64 = $share;/" \
        "$jump/src/explore/gpu/search.rs"
    grep -q "^const GROWING_QUEUE_SHARE: u64 = $share;" "$jump/src/explore/gpu/search.rs"
    pack "jump$share" "$(build_cli "$jump")"
done
git -C "$jump" checkout -q -- src
rm -rf "$dest/kv/pft2" "$dest/kv/dp"
cp -r "$jump/kernels" "$dest/kv/pft2"
git -C "$jump" apply "$root/$patches/decode-prefetch.patch"
cp -r "$jump/kernels" "$dest/kv/dp"
{
    echo "jump, jtests = jump-grows-at-spill $(git rev-parse --short jump-grows-at-spill) (CLI, test binary)"
    echo "jump8, jump16 = its CLI with GROWING_QUEUE_SHARE 8 and 16 (the jump's queues hold 1/8, 1/16 of its slots)"
    echo "kv/pft2 = its kernels; kv/dp = + $patches/decode-prefetch.patch"
} >> "$dest/BUILD"

ranks=$(tree ranks)
pack ranks "$(build_cli "$ranks")"
pack rtests "$(build_tests "$ranks")"
echo "ranks, rtests = ranks $(git rev-parse --short ranks) (CLI, test binary)" >> "$dest/BUILD"

tar -C "$shared/.." -cJf "$dest/mcc3.tar.xz" shared/mcc/oracles.tsv \
    shared/mcc/AutoFlight-PT-05a shared/mcc/AutoFlight-PT-06a \
    shared/mcc/Parking-PT-208 shared/mcc/Philosophers-PT-000020
echo "mcc3.tar.xz = ../shared/mcc: oracles.tsv, AutoFlight-PT-05a, AutoFlight-PT-06a, Parking-PT-208, Philosophers-PT-000020" >> "$dest/BUILD"
cat "$dest/BUILD"
du -sh "$dest"
