#!/usr/bin/env python3
"""Tables of calls A and B (run-a.txt, run-b.txt): per game, the solve
times (min-max) of each build and engine, the CPU solvers alone, and
Oink's fastest solver with the ratio to the new build's `auto`."""
import re
import sys
from collections import defaultdict

TIMED = re.compile(r'^(\S+) (old|new) (auto|gpu|cpu)( run \d+| --solver \S+)?: rc=0 .*"solve_seconds": ([0-9.]+)')
OINK = re.compile(r'^(\S+) oink (\S+): .*total solving time: ([0-9.]+) sec')


def read(path):
    times, oink = defaultdict(list), {}
    for line in open(path):
        if m := TIMED.match(line):
            game, build, engine, what, seconds = m.groups()
            if what and 'verified' in line:
                continue
            key = engine if not what or what.startswith(' run') else f'{engine}{what}'
            times[(game, build, key)].append(float(seconds))
        elif m := OINK.match(line):
            oink[(m.group(1), m.group(2))] = float(m.group(3))
    return times, oink


def span(values):
    return f'{min(values):.3f}-{max(values):.3f}' if values else '-'


for call in sys.argv[1:] or ['run-a.txt', 'run-b.txt']:
    times, oink = read(call)
    games = list(dict.fromkeys(g for g, _, _ in times))
    print(f'## {call}\n')
    print('| game | auto old | auto new | gpu old | gpu new | cpu old | cpu new | pp / tangle / zielonka (new) | Oink fastest | Oink / auto new |')
    print('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |')
    for g in games:
        t = lambda b, e: times.get((g, b, e), [])
        alone = ' / '.join(span(t('new', f'cpu --solver {s}')) for s in ('pp', 'tangle', 'zielonka'))
        best = min(((s, v) for (game, s), v in oink.items() if game == g), key=lambda x: x[1], default=None)
        ratio = '-'
        if best and t('new', 'auto'):
            ratio = f'{best[1] / max(t("new", "auto")):.2f}-{best[1] / min(t("new", "auto")):.2f}'
        print(f'| {g} | {span(t("old", "auto"))} | {span(t("new", "auto"))} | {span(t("old", "gpu"))} | '
              f'{span(t("new", "gpu"))} | {span(t("old", "cpu"))} | {span(t("new", "cpu"))} | {alone} | '
              f'{f"{best[1]:.3f} ({best[0]})" if best else "-"} | {ratio} |')
    print()
