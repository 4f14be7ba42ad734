#!/usr/bin/env bash
# Builds, on the development machine, what run.sh and run2.sh carry into
# DEST (default .device/growth, git-ignored): the CLIs of main e3343127
# (final.xz), of d0df0b88 (pinned.xz: the whole staged table page-locked)
# and of branch bounce-staging (bounce.xz), the integration tests of
# bounce-staging (btests.xz), a variant of it (jump16.xz, below), main's
# CLI and integration tests (main.xz, mtests.xz), the nets (mcc3.tar.xz)
# and BUILD.
# Usage, from the repository root:
#   bash benches/results/2026-12-05k-h100-staged-growth/prepare.sh [DEST]
source "$(dirname "$0")/../2026-12-05c-prepared/build.sh" "${1:-.device/growth}"
for build in "final e3343127" "pinned d0df0b88" "bounce bounce-staging"; do
    set -- $build
    git -C "$work/main" checkout -q --detach "$2"
    pack "$1" "$(cli "$work/main")"
done
tests=$(cd "$work/main" && cargo test --release --no-run 2>&1 | grep -o "target/release/deps/it-[a-z0-9]*" | head -1)
pack btests "$CARGO_TARGET_DIR/${tests#target/}"
# jump16: bounce-staging whose jump table keeps 1/16 of its slots in each
# queue instead of 1/4 (on an H100 its jump then holds 5.6e9 slots instead
# of 4.45e9, so Parking-PT-208 may need no growth through host memory).
variant jump16 src/explore/gpu/search.rs 's/^const GROWING_QUEUE_SHARE: u64 = 4;/const GROWING_QUEUE_SHARE: u64 = 16;/'
# main and mtests: main's CLI and integration tests, for run3.sh.
git -C "$work/main" checkout -q --detach main
pack main "$(cli "$work/main")"
tests=$(cd "$work/main" && cargo test --release --no-run 2>&1 | grep -o "target/release/deps/it-[a-z0-9]*" | head -1)
pack mtests "$CARGO_TARGET_DIR/${tests#target/}"
tar -C "$shared/.." -cJf "$dest/mcc3.tar.xz" shared/mcc/oracles.tsv \
    shared/mcc/AutoFlight-PT-05a shared/mcc/AutoFlight-PT-06a \
    shared/mcc/Parking-PT-208 shared/mcc/Philosophers-PT-000020
cat > "$dest/BUILD" <<END
final = main e3343127 (CLI); pinned = d0df0b88 (CLI: whole staged table page-locked); bounce, btests = branch bounce-staging $(git rev-parse --short bounce-staging) (CLI, integration tests: 128 MiB page-locked buffer, threads copy); jump16 = bounce with GROWING_QUEUE_SHARE 16
main, mtests = main $(git rev-parse --short main) (CLI, integration tests)
mcc3.tar.xz = ../shared/mcc: oracles.tsv, AutoFlight-PT-05a, AutoFlight-PT-06a, Parking-PT-208, Philosophers-PT-000020
END
cat "$dest/BUILD"
du -sh "$dest"
