#!/usr/bin/env bash
# Device call A (session 31), issue 15: how much of `auto`'s solve time on
# pgrand-200k-s11 and counter_qpt-500000 is the race and how much is the
# kernel's page faults, against Oink's Zielonka on 16 and 1 workers. Each
# configuration runs in its own process, 9 rounds interleaved; malloc's
# behaviour is changed through glibc's environment only (same binary):
#   thp   GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (madvise huge pages)
#   keep  MALLOC_MMAP_THRESHOLD_=32 MiB, MALLOC_TRIM_THRESHOLD_=16 GiB
#         (freed memory stays in the process, to be used again)
# The minor faults and system time of each run come from getrusage.
# Carried: .device/s31 (the build, Oink 0a4a37f with Lace v1.4.1 and its
# Boost library, the two games from ../shared/parity).
set -u
cd "$(dirname "$0")/../../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" /tmp/bin /tmp/g
exec > >(tee "$out/run-a.txt") 2>&1
d=.device/s31
nvidia-smi -L; nproc; date -u; cat $d/BUILD; uname -r
lscpu | grep -E "Model name|L3|NUMA node\(s\)"
for f in enabled defrag; do echo "thp $f: $(cat /sys/kernel/mm/transparent_hugepage/$f)"; done
xz -dc $d/warpcheck.xz > /tmp/bin/warpcheck && chmod +x /tmp/bin/warpcheck
for g in pgrand-200k-s11 counter_qpt-500000; do zcat $d/games/$g.pg.gz > /tmp/g/$g.pg; done
export LD_LIBRARY_PATH=$d/lib
cat > /tmp/usage.py <<'PY'
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], capture_output=True, text=True)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"rc={r.returncode} minflt={u.ru_minflt} sys={u.ru_stime:.3f} user={u.ru_utime:.3f}",
      " ".join(l.strip() for l in (r.stdout + r.stderr).splitlines()
               if any(k in l for k in ('"solve_seconds"', '"won_by_even"', '"solver"', 'total solving time', 'error'))))
PY
ours() {  # label env args...
  local label=$1 env=$2; shift 2
  echo "$name $label run $round: $(env $env python3 /tmp/usage.py /tmp/bin/warpcheck --quiet --format json parity $g "$@")"
}
keep="MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=17179869184"
thp="GLIBC_TUNABLES=glibc.malloc.hugetlb=1"
for name in pgrand-200k-s11 counter_qpt-500000; do
  g=/tmp/g/$name.pg
  echo "== $name $(date -u +%T)"
  /tmp/bin/warpcheck --quiet --format json parity $g --verify | grep -E '"(verified|won_by_even)"' | tr -d '\n'; echo
  for round in $(seq 1 9); do
    ours auto "X=1"
    ours "auto thp" "$thp"
    ours "auto keep" "$keep"
    ours pp "X=1" --solver pp --engine cpu
    ours "pp thp" "$thp" --solver pp --engine cpu
    ours "pp keep" "$keep" --solver pp --engine cpu
    ours "zielonka" "X=1" --solver zielonka --engine cpu
    for w in 16 1; do
      echo "$name oink zlk -w $w run $round: $(python3 /tmp/usage.py $d/oink --zlk -w $w -z 50 $g)"
    done
  done
  for s in npp pp tl; do
    echo "$name oink $s run 1: $(python3 /tmp/usage.py $d/oink --$s -z 50 $g)"
  done
done
echo "done $(date -u +%T)"
