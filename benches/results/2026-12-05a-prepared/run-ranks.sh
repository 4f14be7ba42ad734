#!/usr/bin/env bash
# Prepared in session 41, NOT YET RUN (no device was lent that session):
# verify the branch `ranks` (a search split over processes, --ranks) on the
# GPU before it lands.
# Build on the branch: strip and xz its CLI (`ranks.xz`) and its
# integration test binary (`rtests.xz`, target/release/deps/it-*) into
# .device/sNN with mcc3.tar.xz (shared/mcc's AutoFlight-PT-06a with its
# oracle, as session 40's); write BUILD; carry .device/sNN and set
# D=.device/sNN.
# Any kind: (1) with two GPUs, the test that runs one process per GPU; (2)
# the partitioned tests, whose one-process loop the branch rewrote around
# gathers (device copies on one GPU, NCCL on two), in the time left.
# nvidia-h200-x2 only, before (2): (3) AutoFlight-PT-06a on one GPU, on two
# GPUs in one process (--gpus 2) and in two processes (--ranks 2): exact
# counts and search seconds side by side.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
out=${OUT:-/tmp/out}
d=${D:?set D to the carried folder}
mkdir -p "$out/json" /tmp/bin /tmp/shared
exec > >(tee "$out/run-ranks.txt") 2>&1
start=$(date +%s)
nvidia-smi -L; date -u; cat "$d/BUILD"
# CLI and TESTS name the carried binaries (default: ranks.xz, rtests.xz).
xz -dc "$d/${CLI:-ranks}.xz" > /tmp/bin/ranks
xz -dc "$d/${TESTS:-rtests}.xz" > /tmp/bin/rtests
chmod +x /tmp/bin/*
tar -C /tmp/shared --strip-components=1 -xJf "$d/mcc3.tar.xz"
nccl=$(scripts/nccl.sh) && export LD_LIBRARY_PATH="$nccl${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export WARPCHECK_KERNEL_CACHE=/tmp/kc NCCL_NVLS_ENABLE=0 WARPCHECK_BIN=/tmp/bin/ranks
gpus=$(nvidia-smi -L | wc -l)
tests() {
  local left=$(( 570 - ($(date +%s) - start) ))
  echo "at $(( $(date +%s) - start )) s; tests $* get $left s"
  timeout $left /tmp/bin/rtests --include-ignored --test-threads=1 "$@" > /tmp/tests.txt 2>&1
  echo "tests rc $?"
  grep -E "^test |test result|SKIPPED|agree" /tmp/tests.txt
  grep -E -A12 "^---- |panicked" /tmp/tests.txt | head -60
  cat /tmp/tests.txt >> "$out/tests.txt"
}
field() { python3 -c "import json,sys; r=json.load(sys.stdin); p=r.get('partitions') or {}; print(r.get('states'), r.get('search_seconds'), r.get('exit_code'), p.get('exchange'), p.get('bytes_exchanged_per_state'), sep='\t')"; }
model=/tmp/shared/mcc/AutoFlight-PT-06a/model.pnml
common=(check --engine gpu --no-trace --deadlock --all --format json --storage tree "$model")
tests gpu_partitioned::ranks_in_separate_processes
if (( gpus >= 2 )); then
  for split in "--gpus 1" "--gpus 2"; do
    printf '%s\t' "$split"
    timeout 120 /tmp/bin/ranks "${common[@]}" $split > "$out/json/${split// /}.json" 2> "$out/json/${split// /}.err"
    field < "$out/json/${split// /}.json"
  done
  rm -f /tmp/job.id
  pids=()
  for rank in 0 1; do
    timeout 120 /tmp/bin/ranks "${common[@]}" --ranks 2 --rank $rank --rendezvous /tmp/job.id \
      > "$out/json/ranks2-$rank.json" 2> "$out/json/ranks2-$rank.err" &
    pids+=($!)
  done
  # The two ranks only: a bare `wait` would wait for the tee of the log too.
  for pid in "${pids[@]}"; do wait "$pid"; echo "rank exit $?"; done
  printf '%s\t' "--ranks 2"; field < "$out/json/ranks2-0.json"
  echo "rank 1 stdout bytes: $(wc -c < "$out/json/ranks2-1.json"); job.id left: $(ls /tmp/job.id 2>/dev/null)"
  echo "published: $(grep AutoFlight-PT-06a /tmp/shared/mcc/oracles.tsv)"
fi
tests gpu_partitioned::
echo "took $(( $(date +%s) - start )) s"; date -u
