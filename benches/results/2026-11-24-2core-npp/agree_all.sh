#!/usr/bin/env bash
# Every game of a folder with one warpcheck solver and --verify: prints the games whose run failed (exit code)
# or whose winners differ from GAME.sol[.gz] on some vertex, then `done bad=0` when there are none.
#
# Usage: agree_all.sh WARPCHECK SOLVER [GAME_DIR]
bin=$1 solver=$2 dir=${3:-../shared/parity}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
winners() { zcat -f "$1" | awk '$1 != "paritysol" && NF >= 2 { sub(/;$/, "", $2); print $1, $2 }' | sort -n -k1,1; }
bad=0
for game in "$dir"/*.pg "$dir"/*.pg.gz; do
    name=$(basename "$game"); name=${name%.gz}; name=${name%.pg}
    sol=$dir/$name.sol
    [ -f "$sol" ] || sol=$sol.gz
    timeout 30 "$bin" --quiet parity "$game" --engine cpu --solver "$solver" --verify \
        --write-solution "$tmp/sol" >/dev/null 2>&1
    rc=$?
    if [ "$rc" != 0 ]; then echo "$name exit $rc"; bad=1; continue; fi
    winners "$sol" | cmp -s - <(winners "$tmp/sol") || { echo "$name differs"; bad=1; }
done
echo "done bad=$bad"
