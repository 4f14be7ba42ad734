#!/usr/bin/env bash
# Device call A (session 38), issue 17: where trees lose time against plain
# storage. Each of the three large nets without traces: plain, trees with
# compact roots and root pairs, each with its frontier in bitmaps of new
# marks (the default for trees) and in queues (`treeq`, a scratch build of
# the same commit whose trees keep queues when SCRATCH_TREE_QUEUE is set).
# Then the parity GPU tests on the final test binary (session 36's code,
# never run on the device since). Carried: .device/s38.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/shared
exec > >(tee "$out/run-a.txt") 2>&1
d=.device/s38
start=$(date +%s)
nvidia-smi -L; date -u; cat $d/BUILD
for b in final treeq tests; do xz -dc $d/$b.xz > /tmp/bin/$b; done
chmod +x /tmp/bin/*
tar -C /tmp/shared --strip-components=1 -xJf $d/mcc3.tar.xz
tar -C /tmp/shared --strip-components=1 -xJf $d/parity.tar.xz
export WARPCHECK_KERNEL_CACHE=/tmp/kc
field() { python3 -c "import json,sys; r=json.load(sys.stdin); print('\t'.join(str(r.get(k)) for k in sys.argv[1:]))" "$@"; }
run() { # label bin model flags...
  local label=$1 bin=$2 model=$3; shift 3
  printf '%s\t%s\t' "$label" "$model"
  /tmp/bin/$bin check --engine gpu --gpus 1 --no-trace --deadlock --all --format json "$@" /tmp/shared/mcc/$model/model.pnml \
    | field states transitions depth search_seconds states_per_second bytes_per_state storage
}
# warm the kernel cache
/tmp/bin/final check --engine gpu --gpus 1 --no-trace --deadlock --all -q --storage tree /tmp/shared/mcc/AutoFlight-PT-06a/model.pnml --memory 4G >/dev/null 2>&1
for model in ${MODELS:-AutoFlight-PT-06a Philosophers-PT-000020 Parking-PT-208}; do
  grep -P "^$model\t" /tmp/shared/mcc/oracles.tsv
  run plain final $model --storage plain
  run compact-marks final $model --storage tree
  SCRATCH_TREE_QUEUE=1 run compact-queue treeq $model --storage tree
  run pairs-marks final $model --storage tree --tree-roots pairs
  SCRATCH_TREE_QUEUE=1 run pairs-queue treeq $model --storage tree --tree-roots pairs
  echo "at $(( $(date +%s) - start )) s"
done
if [[ -z ${NO_TESTS:-} ]]; then
  WARPCHECK_SHARED=/tmp/shared WARPCHECK_BIN=/tmp/bin/final timeout ${TEST_LIMIT:-250} /tmp/bin/tests --include-ignored --test-threads=1 parity_gpu:: > /tmp/tests.txt 2>&1
  echo "tests rc $?"
  grep -E "^test |test result" /tmp/tests.txt
  grep -E -A12 "^---- |panicked" /tmp/tests.txt | head -60
  cp /tmp/tests.txt "$out/tests-a.txt"
fi
echo "took $(( $(date +%s) - start )) s"; date -u
