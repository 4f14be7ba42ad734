#!/usr/bin/env bash
# Device call B (issue 15): the GPU's small progress measures beside
# Oink's `--spm` (built with OINK_NATIVE=OFF, carried with its libraries)
# on the parity games in .device/pg, winners compared. Carried:
# .device/warpcheck, .device/pg, .device/b25p (oink, lib).
set -u
cd "$(dirname "$0")/../../.."
here=benches/results/2026-11-25-h100-phases
out=${OUT:-/tmp/phases-out}
mkdir -p "$out" /tmp/pgw
nvidia-smi -L
export LD_LIBRARY_PATH=$PWD/.device/b25p/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
printf 'game\toink_spm_solve_s\toink_wall_s\tgpu_spm_solve_s\tgpu_wall_s\tagrees\n' > "$out/parity.tsv"
for game in .device/pg/*.pg .device/pg/*.pg.gz; do
    case $game in *.sol.gz) continue ;; esac
    name=$(basename "${game%.gz}" .pg)
    start=$(date +%s.%N)
    oink_log=$(timeout 30 .device/b25p/oink --spm "$game" "/tmp/pgw/$name.oink.sol" 2>&1)
    oink_wall=$(python3 -c "import sys, time; print(f'{time.time() - float(sys.argv[1]):.3f}')" "$start")
    oink_solve=$(echo "$oink_log" | sed -n 's/.*total solving time: \([0-9.e-]*\).*/\1/p')
    start=$(date +%s.%N)
    timeout 30 .device/warpcheck --format json -q parity "$game" --engine gpu --solver spm \
        --write-solution "/tmp/pgw/$name.ours.sol" > "/tmp/pgw/$name.gpu.json" 2> "/tmp/pgw/$name.gpu.err"
    gpu_wall=$(python3 -c "import sys, time; print(f'{time.time() - float(sys.argv[1]):.3f}')" "$start")
    gpu_solve=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['solve_seconds'])" "/tmp/pgw/$name.gpu.json" 2>/dev/null)
    agrees=$(python3 $here/same_winners.py "/tmp/pgw/$name.oink.sol" "/tmp/pgw/$name.ours.sol" 2>&1 | tail -1)
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "${oink_solve:--}" "$oink_wall" "${gpu_solve:--}" "$gpu_wall" "$agrees" | tee -a "$out/parity.tsv"
done
tail -3 /tmp/pgw/*.gpu.err
