#!/usr/bin/env bash
# Builds, on the development machine, what this folder's device calls carry
# into DEST (default .device/next, git-ignored): stripped, xz-compressed
# binaries of main's tip, the nets, and BUILD (what each file is).
#
#   final.xz, tests.xz   main's CLI and integration-test binary
#   ldg.xz               its CLI reading the network through __ldg, not textures
#   cache64.xz, cache256.xz   its CLI with warp caches of at most 64 and 256
#                        entries (128 on main; 3-word vectors take the most)
#   mcc3.tar.xz          shared/mcc's AutoFlight-PT-05a and -06a,
#                        Parking-PT-208, Philosophers-PT-000020, oracles.tsv
#
# The test binary is built in the repository itself (not a worktree): it
# keeps its build path for tests/data, and the device copy is at that path.
# Usage, from the repository root: bash benches/results/2026-12-05c-prepared/prepare.sh [DEST]
source "$(dirname "$0")/build.sh" "${1:-.device/next}"
commit=$(git rev-parse --short HEAD)
pack final "$(cli "$root")"
tests=$(cargo test --release --no-run --test it --message-format=json 2>/dev/null |
    python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "it" and m.get("executable"):
        print(m["executable"])' | tail -1)
pack tests "$tests"
variant ldg src/explore/gpu/mod.rs 's/readonly_path: ReadOnlyPath::Texture,/readonly_path: ReadOnlyPath::Ldg,/'
variant cache64 src/explore/gpu/kernel.rs 's/(4096 \/ vec_words).clamp(8, 128)/(4096 \/ vec_words).clamp(8, 64)/'
variant cache256 src/explore/gpu/kernel.rs 's/(4096 \/ vec_words).clamp(8, 128)/(4096 \/ vec_words).clamp(8, 256)/'
tar -C "$shared/.." -cJf "$dest/mcc3.tar.xz" shared/mcc/oracles.tsv \
    shared/mcc/AutoFlight-PT-05a shared/mcc/AutoFlight-PT-06a \
    shared/mcc/Parking-PT-208 shared/mcc/Philosophers-PT-000020
cat > "$dest/BUILD" <<END
final, tests = main $commit (CLI, integration-test binary built in $root)
ldg = its CLI reading the network through __ldg (GpuOptions::readonly_path)
cache64, cache256 = its CLI with warp_cache_entries clamped to 64, 256 (main: 128)
mcc3.tar.xz = ../shared/mcc: oracles.tsv, AutoFlight-PT-05a, AutoFlight-PT-06a, Parking-PT-208, Philosophers-PT-000020
END
cat "$dest/BUILD"
du -sh "$dest"
