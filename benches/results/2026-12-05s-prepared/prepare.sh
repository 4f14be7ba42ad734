#!/usr/bin/env bash
# Builds, on the development machine, what run-s.sh carries into DEST
# (default .device/gens, git-ignored): the branch's CLI (gen.xz) and
# integration tests (mtests.xz), the CLI of the commit it grew from
# (base.xz, BASE, default the merge base with main) and ../shared/mcc
# (mcc.tar.xz), and BUILD.
# Usage, from the repository root of the branch:
#   bash benches/results/2026-12-05s-prepared/prepare.sh [DEST]
source "$(dirname "$0")/../2026-12-05c-prepared/build.sh" "${1:-.device/gens}"
base=${BASE:-$(git merge-base HEAD main)}
pack_main
mv "$dest/final.xz" "$dest/gen.xz"
git worktree add -q --detach "$work/base-tree" "$base"
pack base "$(cli "$work/base-tree")"
git worktree remove --force "$work/base-tree"
tar -C "$shared/.." -cJf "$dest/mcc.tar.xz" shared/mcc
cat > "$dest/BUILD" <<END
gen, mtests = $(git rev-parse --abbrev-ref HEAD) $(git rev-parse --short HEAD) (CLI, integration tests)
base = $(git rev-parse --short "$base") (CLI)
mcc.tar.xz = ../shared/mcc
END
cat "$dest/BUILD"
du -sh "$dest"
