#!/usr/bin/env bash
# `--solver spm --engine cpu` with and without `--shortcuts` on every game
# of tests/data/parity: lifts (from the debug log; they do not depend on
# the machine), moves that skip a chain, and solve seconds. Games whose
# SPM lifts nothing either way are left out. Run from the repository root
# after `cargo build --release`; 10 s a run at most.
set -u
echo -e "game\tlifts\tlifts_shortcuts\tskipping\tsolve_s\tsolve_s_shortcuts"
for f in tests/data/parity/*.pg; do
  g=$(basename "$f" .pg)
  row=("$g")
  for flag in "" --shortcuts; do
    log=$(RUST_LOG=warpcheck=debug timeout 10 ./target/release/warpcheck --quiet --format json \
      parity "$f" --engine cpu --solver spm $flag 2>&1)
    lifts=$(grep -o "lifts=[0-9]*" <<<"$log" | cut -d= -f2)
    skipping=$(grep -o "skipping=[0-9]*" <<<"$log" | cut -d= -f2)
    solve=$(grep -o '"solve_seconds": [0-9.e-]*' <<<"$log" | cut -d' ' -f2)
    row+=("${lifts:-timeout}" "${skipping:-}" "${solve:-}")
  done
  [[ ${row[1]} == 0 && ${row[4]} == 0 ]] && continue
  echo -e "${row[0]}\t${row[1]}\t${row[4]}\t${row[5]}\t${row[3]}\t${row[6]}"
done
