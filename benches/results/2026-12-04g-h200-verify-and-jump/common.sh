# Sourced by next-g.sh and run-f.sh (session 40's prepared calls) and
# 2026-12-05a-prepared/run-h.sh (also 2026-12-05b's run.sh, 2026-12-05c's
# run-i.sh and run-x2.sh, 2026-12-05k's run.sh, run2.sh and run3.sh, and
# 2026-12-05w's run-w.sh): unpacks the carried binaries (every
# NAME.xz into /tmp/bin/NAME) and every archive of shared data (NAME.tar.xz,
# into /tmp/shared), and defines `run` (one check, a line of
# its JSON's figures) and `gpu_tests` (the GPU tests of every storage and
# frontier), `use_nccl` (session 44), `show_tests` (session 45), `timed_tests` (session 46), and `tree_details`, `test_groups` and `pack_and_test` (session 48, for 2026-12-05s's run-s.sh and 2026-12-05u's run-u.sh), and `ecl_scc` (session 49, for 2026-12-05w's run-w.sh). Source it from the repository root with `log` set to the name
# of the calling script's log ($OUT/$log.txt); D names the carried folder.
set -u
out=${OUT:-/tmp/out}
d=${D:?set D to the carried folder}
mkdir -p "$out/json" /tmp/bin /tmp/shared
exec > >(tee "$out/$log.txt") 2>&1
start=$(date +%s)
nvidia-smi -L; date -u; cat $d/BUILD
for f in $d/*.xz; do b=$(basename $f .xz); [[ $b == *.tar ]] || xz -dc $f > /tmp/bin/$b; done
chmod +x /tmp/bin/*
for f in $d/*.tar.xz; do tar -C /tmp/shared --strip-components=1 -xJf $f; done
export WARPCHECK_KERNEL_CACHE=/tmp/kc NCCL_NVLS_ENABLE=0
field() { python3 -c "import json,sys; r=json.load(sys.stdin); print('\t'.join(str(r.get(k)) for k in sys.argv[1:]))" "$@"; }
# run NAME STORAGE traces|no-trace MODEL: NAME `main` is main's CLI, a
# kernel tree of $d/kv/ the branch's CLI with it, a carried binary (such as
# jump8) that binary, anything else the branch's CLI with its own kernels.
run() {
  local name="$1-$2-$3-$4" bin=jump kernels=()
  if [[ $1 == main ]]; then bin=final; elif [[ -d $d/kv/$1 ]]; then kernels=(WARPCHECK_KERNEL_DIR=$d/kv/$1)
  elif [[ -x /tmp/bin/$1 ]]; then bin=$1; fi
  printf '%s\t%s\t%s\t%s\t' "$1" "$2" "$3" "$4"
  env "${kernels[@]}" timeout 120 /tmp/bin/$bin check -v --engine gpu --gpus 1 \
    $([[ $3 == no-trace ]] && echo --no-trace) --deadlock --all --format json --storage $2 \
    /tmp/shared/mcc/$4/model.pnml > "$out/json/$name.json" 2> "$out/json/$name.err"
  field states search_seconds states_per_second bytes_per_state memory_bytes exit_code < "$out/json/$name.json"
}
# use_nccl: prints the GPUs' topology and puts NCCL (scripts/nccl.sh) on
# LD_LIBRARY_PATH, for the calls of several GPUs.
use_nccl() {
  nvidia-smi topo -m
  nccl=$(scripts/nccl.sh) && export LD_LIBRARY_PATH="$nccl${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}
# gpu_tests NAME: the branch's test binary (with kernel tree NAME of
# $d/kv/ if there is one) in the time left of 570 s, into $out/tests-NAME.txt.
gpu_tests() {
  local kernels=() left=$(( 570 - ($(date +%s) - start) ))
  [[ -d $d/kv/$1 ]] && kernels=(WARPCHECK_KERNEL_DIR=$d/kv/$1)
  echo "at $(( $(date +%s) - start )) s; tests ($1) get $left s"
  env "${kernels[@]}" WARPCHECK_BIN=/tmp/bin/jump timeout $left /tmp/bin/jtests --include-ignored --test-threads=1 \
    gpu::compact_tables_that_grow gpu::spilling gpu::tables_that_grow gpu::compact_roots gpu_partitioned::compact \
    gpu::auto_storage gpu::small_mcc gpu::specs_match > /tmp/tests.txt 2>&1
  show_tests $? "$1"
}
# show_tests RC NAME: the exit status of a test run (124: the time limit),
# its test lines and failures from /tmp/tests.txt, kept as $out/tests-NAME.txt.
show_tests() {
  echo "tests rc $1 (124: the time limit)"
  grep -E "^test |test result" /tmp/tests.txt
  grep -E -A12 "^---- |panicked" /tmp/tests.txt | head -60
  cp /tmp/tests.txt "$out/tests-$2.txt"
}
# timed_tests UNTIL FILTER...: every test of /tmp/bin/mtests that the
# filters select, one process a test, each with its seconds, while the
# clock (date +%s) is below UNTIL; the tests' output goes to /tmp/tests.txt
# for show_tests. Returns 124 where time ran out, else 1 where a test
# failed, else 0. WARPCHECK_BIN and the data variables come from the caller.
timed_tests() {
  local until=$1 failed=0 out_of_time=0 t begin left
  shift
  /tmp/bin/mtests --list --include-ignored "$@" 2>/dev/null | sed -n 's/: test$//p' > /tmp/list.txt
  : > /tmp/tests.txt
  while read -r t; do
    left=$(( until - $(date +%s) ))
    (( left > 0 )) || { echo "no time for $t"; out_of_time=1; continue; }
    begin=$EPOCHREALTIME
    timeout $left /tmp/bin/mtests --include-ignored --exact --test-threads=1 "$t" >> /tmp/tests.txt 2>&1
    case $? in 0) ;; 124) out_of_time=1 ;; *) failed=1 ;; esac
    awk -v t="$t" -v a="$begin" -v b="$EPOCHREALTIME" 'BEGIN { printf "%7.1f s  %s\n", b - a, t }'
  done < /tmp/list.txt
  (( out_of_time )) && return 124
  return $failed
}
# tree_details NAME: the hash table and tree nodes lines of run NAME's JSON.
tree_details() { python3 -c "import json,sys; r=json.load(sys.stdin); d=dict(r['engine_details']); print('   ', d.get('hash table'), '|', d.get('tree nodes'))" < "$out/json/$1.json" 2>/dev/null; }
# test_groups UNTIL GROUPS: timed_tests for each group of filters in GROUPS
# (groups separated by ";"), each shown and kept as $out/tests-groupN.txt.
test_groups() {
  local until=$1 group=0 filters groups
  IFS=';' read -ra groups <<< "$2"
  for filters in "${groups[@]}"; do
    group=$(( group + 1 ))
    # shellcheck disable=SC2086 # the filters are words
    timed_tests $until $filters
    show_tests $? group$group
  done
}
# pack_and_test LIMIT GROUPS: packs the runs' JSON into
# $out/json-$log.tar.xz, runs the tests of GROUPS (test_groups) against
# /tmp/bin/gen until LIMIT seconds after call_start, and says how long the
# call took.
pack_and_test() {
  tar -C "$out" -cJf "$out/json-$log.tar.xz" json && rm -rf "$out/json"
  export WARPCHECK_BIN=/tmp/bin/gen WARPCHECK_MCC=/tmp/shared/mcc
  echo "at $(( $(date +%s) - call_start )) s: tests until $1 s"
  test_groups $(( call_start + $1 )) "$2"
  echo "took $(( $(date +%s) - call_start )) s"; date -u
}
# ecl_scc GRAPH.egr RUNS: ECL-SCC (the source in $d/ecl, built with nvcc
# on the first call, its printout's clock rates dropped: CUDA 13 has no
# deviceProp.clockRate) RUNS times on GRAPH, a compute time a line.
ecl_scc() {
  [[ -x /tmp/ecl-scc ]] || { sed 's/deviceProp\.clockRate \* 0\.001, deviceProp\.memoryClockRate \* 0\.001/0.0, 0.0/' \
    $d/ecl/ECL-SCC_10.cu > /tmp/ECL-SCC_10.cu && cp $d/ecl/ECLgraph.h /tmp/ && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc /tmp/ECL-SCC_10.cu; }
  for r in $(seq $2); do echo "== ECL-SCC $(basename $1) $(timeout 60 /tmp/ecl-scc $1 | grep -E "compute time")"; done
}
