#!/usr/bin/env bash
# Side by side on the development machine: examples/kernel_keys.rs built
# from BEFORE (default 0ae1894f, the commit before the change, with this
# example copied in) and from the working tree, alternating, ROUNDS times
# (default 5). Usage, from anywhere in the repository:
#   bash benches/results/2026-12-05h-2core-kernel-lookups/run.sh [BEFORE] [ROUNDS]
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
before=${1:-0ae1894f}
rounds=${2:-5}
work=$(mktemp -d)
trap 'git worktree remove --force "$work/before" 2>/dev/null || true; rm -rf "$work"' EXIT
git worktree add -q --detach "$work/before" "$before"
cp examples/kernel_keys.rs "$work/before/examples/"
(cd "$work/before" && CARGO_TARGET_DIR="$root/target/kernel-keys-before" cargo build --release --quiet --example kernel_keys)
cargo build --release --quiet --example kernel_keys
for round in $(seq "$rounds"); do
  printf 'round %s before (%s): ' "$round" "$before"
  "$root/target/kernel-keys-before/release/examples/kernel_keys"
  printf 'round %s after: ' "$round"
  "$root/target/release/examples/kernel_keys"
done
