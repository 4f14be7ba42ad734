#!/usr/bin/env bash
# Device call C (session 34), issue 15: where a round of prop50_1k's
# lifting goes, with the final build (`now` of call B): the kernels'
# durations and the gaps between them from Nsight Systems (nsys, where
# the machine has it), summed per kernel; then rounds of the final build
# and Oink's SPM without preprocessing on prop50_1k and tprop21.
# Carried: .device/s33 (generator, Oink and its libraries), .device/s34b.
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/g
exec > >(tee "$out/run-c.txt") 2>&1
d=.device/s33
n=.device/s34b
start=$(date +%s)
nvidia-smi -L; date -u; cat $n/BUILD
xz -dc $n/warpcheck.xz > /tmp/bin/now; chmod +x /tmp/bin/now
export LD_LIBRARY_PATH=$d/lib WARPCHECK_KERNEL_CACHE=/tmp/kc
$d/gen/parity_propagation paths 50 1000 > /tmp/g/prop50_1k.pg
$d/gen/parity_propagation tree 22 2 > /tmp/g/tprop21.pg
field() { python3 -c "import json,sys; r=json.load(sys.stdin); print(' '.join(str(r.get(k)) for k in sys.argv[1:]))" "$@"; }
/tmp/bin/now parity /tmp/g/prop50_1k.pg --engine gpu --solver spm --no-preprocessing -q > /dev/null
nsys=$(command -v nsys || ls /usr/local/cuda*/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
echo "nsys: ${nsys:-none}"
if [[ -n $nsys ]]; then
  timeout 120 $nsys profile -t cuda -o /tmp/p -f true /tmp/bin/now parity /tmp/g/prop50_1k.pg --engine gpu --solver spm --no-preprocessing -q 2>&1 | tail -2
  timeout 120 $nsys stats -r cuda_gpu_kern_sum -f csv -o /tmp/kern /tmp/p.nsys-rep > /dev/null 2>&1
  cat /tmp/kern*.csv | cut -c1-220
  timeout 120 $nsys stats -r cuda_gpu_trace -f csv -o /tmp/trace /tmp/p.nsys-rep > /dev/null 2>&1
  timeout 120 $nsys stats -r cuda_api_sum -f csv -o /tmp/api /tmp/p.nsys-rep > /dev/null 2>&1
  head -12 /tmp/api*.csv | cut -c1-200
  python3 - /tmp/trace*.csv <<'PY'
import csv, sys, statistics
rows = list(csv.DictReader(open(sys.argv[1])))
key = lambda r, *names: next(r[k] for k in r if any(n in k for n in names))
lift = [r for r in rows if 'spm_lift' in key(r, 'Name') and 'queue' not in key(r, 'Name')]
starts = [int(key(r, 'Start')) for r in lift]
durations = [int(key(r, 'Duration')) for r in lift]
gaps = [b - (a + d) for a, d, b in zip(starts, durations, starts[1:])]
print(f"spm_lift launches {len(lift)}: duration median {statistics.median(durations)/1e3:.1f} us, "
      f"mean {statistics.mean(durations)/1e3:.1f} us, sum {sum(durations)/1e6:.2f} ms; "
      f"gap to the next median {statistics.median(gaps)/1e3:.1f} us, sum {sum(gaps)/1e6:.2f} ms")
PY
fi
for name in prop50_1k tprop21; do
  f=/tmp/g/$name.pg
  echo "== $name"
  for round in 1 2 3; do
    echo "now: $(/tmp/bin/now --format json parity $f --engine gpu --solver spm --no-preprocessing -q | field won_by_even solve_seconds)"
    (( round < 3 )) && echo "oink: $($d/oink --spm --no-wcwc --no-single $f 2>&1 | grep -E 'total solving time' | tr '\n' ' ')"
  done
done
echo "all took $(( $(date +%s) - start )) s"
