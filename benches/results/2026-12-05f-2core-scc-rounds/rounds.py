"""Colouring's rounds on the CPU, as the GPU runs them (src/scc/gpu.rs),
with K label pairs a round instead of one: each pair from its own random
priorities, propagated to a fixed point by Jacobi sweeps (maximum over
successors for the out label, over predecessors for the in label). A live
state whose pair agrees in any of the K is assigned; an edge stays when
both ends are live and agree on all K pairs. Prints each round's live
states, edges and sweeps. Usage: rounds.py pet3.npz K"""
import sys

import numpy as np

z = np.load(sys.argv[1])
s, d = z["src"], z["dst"]
n = int(max(s.max(), d.max())) + 1
K = int(sys.argv[2])
rng = np.random.default_rng(7)


def propagate(prio, es, ed):
    out, inn, sweeps = prio.copy(), prio.copy(), 0
    while True:
        sweeps += 1
        o2 = out.copy()
        np.maximum.at(o2, es, out[ed])
        i2 = inn.copy()
        np.maximum.at(i2, ed, inn[es])
        changed = (o2 != out).any() or (i2 != inn).any()
        out, inn = o2, i2
        if not changed:
            return out, inn, sweeps


live = np.ones(n, bool)
es, ed = s[s != d], d[s != d]
rounds = edge_rounds = 0
while live.any():
    rounds += 1
    assigned = np.zeros(n, bool)
    same = np.ones(len(es), bool)
    sweeps = []
    for _ in range(K):
        out, inn, k = propagate(rng.permutation(n).astype(np.int64), es, ed)
        sweeps.append(k)
        assigned |= live & (out == inn)
        same &= (out[es] == out[ed]) & (inn[es] == inn[ed])
    edge_rounds += len(es)
    print(f"K={K} round {rounds}: live {live.sum()} edges {len(es)} sweeps {sweeps} assigned {assigned.sum()}", flush=True)
    live &= ~assigned
    keep = same & live[es] & live[ed]
    es, ed = es[keep], ed[keep]
print(f"K={K}: {rounds} rounds, {edge_rounds / 1e6:.1f} M edges over all rounds")
