#!/usr/bin/env bash
# Build Oink (https://github.com/trolando/oink, the parity game solver collection of Tom van Dijk) at a pinned commit,
# with its dependency Lace (work-stealing framework) at a pinned tag, and leave the `oink` binary in DIR.
# Nothing of Oink or Lace is kept in this repository: the sources are cloned into DIR/src at build time.
#
# Usage: scripts/oink_build.sh [--oink-repo URL|PATH] [--lace-repo URL|PATH] [--no-apt] DIR
#   DIR           where the sources (DIR/src), the build (DIR/build) and the binary (DIR/oink) go
#   --oink-repo   where to clone Oink from (default https://github.com/trolando/oink); any git URL or a local
#                 clone or mirror (bare or not), for machines without network access to GitHub
#                 (a mirror that lacks Oink's large example games makes git print "invalid object ... for
#                 'examples/...'" while checking out; harmless, examples/ is not checked out)
#   --lace-repo   the same for Lace (default https://github.com/trolando/lace)
#   --no-apt      do not install the Debian packages (cmake, g++, Boost); they must be there already
# Environment: OINK_COMMIT (default 0a4a37f), LACE_TAG (default v1.4.1), JOBS (default: nproc),
#              OINK_NATIVE (default ON; OFF builds for any x86-64, e.g. to carry the binary to another machine).
#
# Oink's CMakeLists fetches Lace itself with FetchContent (GIT_TAG v1.4.1) when no installed Lace is found;
# it is not a git submodule. This script clones Lace beside Oink and hands it to FetchContent through
# FETCHCONTENT_SOURCE_DIR_LACE, so the build needs no network once both clones are there.
# Oink is built in Release with its default OINK_BUILD_NATIVE=ON (-march=native): the binary is for this machine
# unless OINK_NATIVE=OFF.
set -euo pipefail

oink_repo=https://github.com/trolando/oink
lace_repo=https://github.com/trolando/lace
oink_commit=${OINK_COMMIT:-0a4a37f}
lace_tag=${LACE_TAG:-v1.4.1}
apt=1
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
        --oink-repo) oink_repo=$2; shift 2 ;;
        --lace-repo) lace_repo=$2; shift 2 ;;
        --no-apt) apt=0; shift ;;
        -h|--help) usage ;;
        -*) echo "unknown option $1" >&2; usage ;;
        *) break ;;
    esac
done
[ $# -eq 1 ] || usage
dir=$1
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

if [ "$apt" = 1 ]; then
    sudo=
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq
    # Oink's CMakeLists asks for Boost (CONFIG mode) with filesystem iostreams regex system random.
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        cmake make g++ git ca-certificates libboost-dev libboost-filesystem-dev libboost-iostreams-dev \
        libboost-regex-dev libboost-system-dev libboost-random-dev
fi

# clone REPO REF DEST [DIR ...]: a fresh clone of REPO checked out at REF (a commit or a tag); with DIRs, only
# those folders (and the top-level files) are checked out. Oink's examples/ (large game files, not needed to
# build) are left out that way, also because a partial mirror may lack their contents.
clone() {
    local repo=$1 ref=$2 dest=$3
    shift 3
    rm -rf "$dest"
    # (called under `if`, where set -e does not apply: every step returns on failure)
    git clone --quiet --no-checkout "$repo" "$dest" || return 1
    if [ $# -gt 0 ]; then
        # cone-mode sparse checkout, written by hand: `git sparse-checkout set` would first try to check out the
        # default branch, which fails on a mirror that lacks some of its files.
        git -C "$dest" config core.sparseCheckout true || return 1
        git -C "$dest" config core.sparseCheckoutCone true || return 1
        mkdir -p "$dest/.git/info" || return 1
        { printf '/*\n!/*/\n'; printf '/%s/\n' "$@"; } >"$dest/.git/info/sparse-checkout" || return 1
    fi
    git -C "$dest" -c advice.detachedHead=false checkout --quiet "$ref"
}
if ! clone "$oink_repo" "$oink_commit" "$dir/src/oink" cmake include src; then
    echo "cannot clone Oink from $oink_repo (no network? pass --oink-repo with a local mirror)" >&2
    exit 1
fi
if ! clone "$lace_repo" "$lace_tag" "$dir/src/lace"; then
    echo "cannot clone Lace from $lace_repo (no network? pass --lace-repo with a local mirror)" >&2
    exit 1
fi

cmake -S "$dir/src/oink" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release \
    -DFETCHCONTENT_SOURCE_DIR_LACE="$dir/src/lace" -DFETCHCONTENT_FULLY_DISCONNECTED=ON \
    -DOINK_BUILD_TESTS=OFF -DOINK_BUILD_TOOLS=OFF -DOINK_BUILD_NATIVE="${OINK_NATIVE:-ON}" >"$dir/cmake.log"
cmake --build "$dir/build" --target solve --parallel "${JOBS:-$(nproc)}" >"$dir/build.log"
bin=$(find "$dir/build" -type f -name oink -perm -u+x | head -n 1)
[ -n "$bin" ] || { echo "no oink binary after the build; see $dir/build.log" >&2; exit 1; }
cp "$bin" "$dir/oink"
printf 'oink %s (lace %s) built: %s\n' "$(git -C "$dir/src/oink" rev-parse --short=12 HEAD)" \
    "$(git -C "$dir/src/lace" describe --tags)" "$dir/oink"
