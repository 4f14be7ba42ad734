#!/usr/bin/env bash
# Builds, on the development machine, what run.sh carries into DEST
# (default .device/fbscaling, git-ignored): ../2026-12-05i-2core-cpu-scc-scaling/fb_scaling.rs
# built at HEAD (fb_scaling.xz, stripped) and BUILD.
# Usage, from the repository root: bash benches/results/2026-12-05l-prepared/prepare.sh [DEST]
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
dest=$(realpath -m "${1:-.device/fbscaling}")
mkdir -p "$dest"
trap 'rm -f "$root/examples/fb_scaling.rs"' EXIT
cp benches/results/2026-12-05i-2core-cpu-scc-scaling/fb_scaling.rs examples/
cargo build --release --quiet --example fb_scaling
strip -o "$dest/fb_scaling" target/release/examples/fb_scaling
xz -T0 -f "$dest/fb_scaling"
echo "fb_scaling = ../2026-12-05i-2core-cpu-scc-scaling/fb_scaling.rs at $(git rev-parse --short HEAD)" > "$dest/BUILD"
cat "$dest/BUILD"
