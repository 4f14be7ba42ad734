#!/usr/bin/env bash
# Prepared in session 43, NOT YET RUN (issue 17): does a node table that
# fits the L2 cache speed up tree storage? Main's node table holds 2^32
# entries (32 GiB) and Parking-PT-208 stores 2,973,697 nodes in it (0.07 %),
# Philosophers-PT-000020 2,598,156, AutoFlight-PT-06a 5,569: each of the
# first two nets' nodes then lies alone in its 128-byte bucket, and a
# look-up reads one of about 3·10^6 sectors (95 MB, beyond the 50 MB L2).
# Variants nodes22, nodes24, nodes26 cap the table at 2^22, 2^24, 2^26
# entries (32, 128, 512 MiB), with --memory set so that the table of roots
# keeps main's budget (124.9 GiB less 32 GiB of nodes: 92.9 GiB).
# Two rounds on Parking-PT-208, then each net of 10^9 states or more once,
# trees without traces. A variant that wins by 2 % or more asks for a node
# table sized to its nodes (it does not grow today: indices are in the roots).
# Build with prepare.sh (this folder), carry .device/nodes:
#   D=.device/nodes bash benches/results/2026-12-05e-prepared/run-k.sh   (about 260 s)
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
log=run-k
source "$here/../2026-12-04g-h200-verify-and-jump/common.sh"
ln -sf /tmp/bin/final /tmp/bin/jump
# The variants' binaries, behind a wrapper with the --memory that leaves
# the roots 92.9 GiB beside their node table.
for v in nodes22:92.93G nodes24:93.03G nodes26:93.4G; do
  mv /tmp/bin/${v%%:*} /tmp/bin/${v%%:*}-cli
  printf '#!/bin/sh\nexec /tmp/bin/%s-cli "$@" --memory %s\n' ${v%%:*} ${v#*:} > /tmp/bin/${v%%:*}
  chmod +x /tmp/bin/${v%%:*}
done
variants=(branch nodes22 nodes24 nodes26)
for round in 1 2; do
  for v in "${variants[@]}"; do run $v tree no-trace Parking-PT-208; done
  echo "round $round at $(( $(date +%s) - start )) s"
  variants=(nodes26 nodes24 nodes22 branch)
done
for model in AutoFlight-PT-06a Philosophers-PT-000020; do
  for v in "${variants[@]}"; do run $v tree no-trace $model; done
  echo "$model at $(( $(date +%s) - start )) s"
done
for f in "$out"/json/*.json; do
  printf '%s\t' "$(basename $f .json)"
  python3 -c "import json,sys; d=dict(json.load(open(sys.argv[1])).get('engine_details') or []); print(d.get('hash table'), '|', d.get('tree nodes'))" $f
done
grep -h '"error"' "$out"/json/*.json | head -c 2000
tar -C "$out" -cJf "$out/json-$log.tar.xz" json && rm -rf "$out/json"
echo "took $(( $(date +%s) - start )) s"; date -u
