#!/usr/bin/env bash
# Issue 13's CPU criterion (at least 1.7x from 1 to 2 threads on graphs of
# 10^6 states or more) on a quiet machine: the device machine's CPUs,
# which no other session shares, unlike the 2-core development machine
# (../2026-12-05i-2core-cpu-scc-scaling/: R-MAT 2^20 1.61x, random 1.75x,
# with a run-to-run spread of up to 20 %; after session 45's reads before
# writes, ../2026-12-05m-2core-cpu-scc-reads/: 1.73x and 1.78x). fb_scaling on two cores of one
# socket (taskset), three rounds a graph, each of 5 repetitions
# alternating 1 and 2 threads. About 90 s; no GPU needed. The two CPUs are
# the first two of distinct physical cores of socket 0 (`lscpu -p`), so
# that hyperthreads of one core do not pose as two cores.
# Carry .device/fbscaling and set D to it; the log goes to $OUT/run.txt.
set -u
out=${OUT:-/tmp/out}
d=${D:?set D to the carried folder}
mkdir -p "$out"
exec > >(tee "$out/run.txt") 2>&1
lscpu | grep -E "Model name|^CPU\(s\)|Thread|Socket|L2|L3"
cat "$d/BUILD"; date -u
xz -dc "$d/fb_scaling.xz" > /tmp/fb_scaling && chmod +x /tmp/fb_scaling
cpus=$(lscpu -p=CPU,CORE,SOCKET | grep -v '^#' | awk -F, '$3 == 0 && !seen[$2]++ { print $1 }' | head -2 | paste -sd,)
echo "CPUs $cpus"
for graph in rmat random; do
  for round in 1 2 3; do
    echo "== $graph, round $round"
    taskset -c "$cpus" /tmp/fb_scaling "$graph"
  done
done
date -u
