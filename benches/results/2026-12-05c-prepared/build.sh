# Sourced by prepare.sh (this folder) and ../2026-12-05e-prepared/prepare.sh,
# from anywhere in the repository, with the destination folder as its
# argument: goes to the repository root, makes DEST (`dest`) and a
# worktree of HEAD (`$work/main`, removed on exit), and defines
#   pack NAME FILE      FILE stripped into DEST/NAME.xz
#   cli DIR             builds the tree in DIR, prints its CLI's path
#   variant NAME FILE SED   the worktree's CLI with SED applied to FILE
#                       (which must change it), packed as NAME
#   pack_main           the worktree's CLI and integration tests, packed
#                       as final and mtests
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
dest=$(realpath -m "$1")
shared=$(realpath ../shared)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
mkdir -p "$dest"
work=$(mktemp -d)
trap 'git worktree remove --force "$work/main" 2>/dev/null || true; rm -rf "$work"' EXIT

# pack NAME FILE: strip FILE into DEST/NAME.xz.
pack() {
    strip -o "$work/$1" "$2"
    xz -T0 -c "$work/$1" > "$dest/$1.xz"
}
# cli DIR: the CLI (printed) of the tree in DIR.
cli() {
    (cd "$1" && cargo build --release --quiet) >&2
    echo "$CARGO_TARGET_DIR/release/warpcheck"
}
git worktree add -q --detach "$work/main" HEAD
# variant NAME FILE SED: the worktree's CLI with SED applied to FILE (which must change).
variant() {
    git -C "$work/main" checkout -q -- src
    sed -i "$3" "$work/main/$2"
    if git -C "$work/main" diff --quiet -- src; then echo "$1: $3 changed nothing" >&2; exit 1; fi
    pack "$1" "$(cli "$work/main")"
}
# pack_main: the worktree's CLI (final.xz) and integration tests (mtests.xz).
pack_main() {
    pack final "$(cli "$work/main")"
    local tests
    tests=$(cd "$work/main" && cargo test --release --no-run 2>&1 | grep -o "target/release/deps/it-[a-z0-9]*" | head -1)
    pack mtests "$CARGO_TARGET_DIR/${tests#target/}"
}
