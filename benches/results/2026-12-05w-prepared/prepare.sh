#!/usr/bin/env bash
# Session 49, issue 13: builds .device/s49 for run-w.sh on the 2-core
# machine: the current commit's warpcheck, `it` test binary and scc_bench
# (stripped, xz), ECL-SCC 8e67732's source (fetched into
# /work/.mirror/burtscher+ECL-SCC by the library's fetch), the two nets,
# ../shared/graphs and the MDPs of ../shared/prob with Storm's MECs, for
# the GPU tests. About 13.4 MB to carry.
set -euo pipefail
cd "$(dirname "$0")/../../.."
d=.device/s49
rm -rf $d && mkdir -p $d/ecl $d/mcc
cargo build --release --example scc_bench --bin warpcheck
tests=$(cargo test --release --no-run --test it 2>&1 | sed -n 's/.*(\(target\/release\/deps\/it-[0-9a-f]*\)).*/\1/p')
for f in target/release/warpcheck target/release/examples/scc_bench "$tests"; do
  name=$(basename "$f"); [[ $name == it-* ]] && name=tests
  strip -o /tmp/$name "$f" && xz -T2 -6 -c /tmp/$name > $d/$name.xz
done
mirror=/work/.mirror/burtscher+ECL-SCC/repo
git --git-dir=$mirror show 8e67732:source/ECL-SCC_10.cu > $d/ecl/ECL-SCC_10.cu
git --git-dir=$mirror show 8e67732:source/ECLgraph.h > $d/ecl/ECLgraph.h
cp -r ../shared/mcc/Peterson-PT-3 ../shared/mcc/Referendum-PT-0015 $d/mcc/
mdps=$(sed 's/\.mec$//' <(cd ../shared/prob && ls *.mec) | tr '\n' '|')
prob=$(cd .. && ls shared/prob/* | grep -E "/(${mdps%|})\.|\.(tsv|md|log)$")
tar -C .. -cJf $d/shared.tar.xz shared/graphs $prob
git rev-parse HEAD > $d/BUILD
git status --short >> $d/BUILD
du -sh $d
