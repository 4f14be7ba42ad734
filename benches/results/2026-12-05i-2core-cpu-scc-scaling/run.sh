#!/usr/bin/env bash
# Issue 13's CPU criterion (at least 1.7x from 1 to 2 threads) measured
# again: fb_scaling.rs built at BEFORE (default 8b6611ca^, before the
# race's stop checks inside trimming's sweeps) and at the working tree,
# then run alternately, ROUNDS times on each graph (default 2). Pause
# other work on the machine first. Usage, from anywhere in the repository:
#   bash benches/results/2026-12-05i-2core-cpu-scc-scaling/run.sh [BEFORE] [ROUNDS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(git rev-parse --show-toplevel)
cd "$root"
before=${1:-8b6611ca^}
rounds=${2:-2}
work=$(mktemp -d)
trap 'git worktree remove --force "$work/before" 2>/dev/null || true; rm -f "$root/examples/fb_scaling.rs"; rm -rf "$work"' EXIT
git worktree add -q --detach "$work/before" "$before"
cp "$here/fb_scaling.rs" "$work/before/examples/"
cp "$here/fb_scaling.rs" "$root/examples/"
(cd "$work/before" && CARGO_TARGET_DIR="$root/target/fb-scaling-before" cargo build --release --quiet --example fb_scaling)
cargo build --release --quiet --example fb_scaling
for graph in rmat random; do
  for round in $(seq "$rounds"); do
    echo "== $graph, round $round, before ($before)"
    "$root/target/fb-scaling-before/release/examples/fb_scaling" "$graph"
    echo "== $graph, round $round, after (working tree)"
    "$root/target/release/examples/fb_scaling" "$graph"
  done
done
