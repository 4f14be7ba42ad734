#!/usr/bin/env python3
"""Tables of the calls (run-a.txt, run-b.txt, run-c.txt): per game, the
solve times (least-greatest) of each build (old: 97585492; new: this
change; zl: the variant racing Zielonka's algorithm too) and engine, the
CPU solvers alone, and Oink's fastest solver with its time over the new
build's `auto` (above 1: warpcheck is faster)."""
import re
import sys
from collections import defaultdict

TIMED = re.compile(r'^(\S+) (old|new|zl) (auto|gpu|cpu)( run \d+| --solver \S+)?: rc=0 .*"solve_seconds": ([0-9.]+)')
OINK = re.compile(r'^(\S+) oink (\S+): .*total solving time: ([0-9.]+) sec')


def read(path):
    times, oink = defaultdict(list), {}
    for line in open(path):
        if m := TIMED.match(line):
            game, build, engine, what, seconds = m.groups()
            if what and what.startswith(' --solver'):
                engine += what
            times[(game, f'{engine} {build}')].append(float(seconds))
        elif m := OINK.match(line):
            oink[(m.group(1), m.group(2))] = float(m.group(3))
    return times, oink


def span(values):
    return f'{min(values):.3f}-{max(values):.3f}' if values else '-'


for call in sys.argv[1:] or ['run-a.txt', 'run-b.txt', 'run-c.txt']:
    times, oink = read(call)
    games = list(dict.fromkeys(g for g, _ in times))
    columns = sorted({c for _, c in times}, key=lambda c: (c.split(' ')[0], c))
    print(f'## {call}\n')
    print('| game | ' + ' | '.join(columns) + ' | Oink fastest | Oink / auto new |')
    print('| --- ' * (len(columns) + 3) + '|')
    for g in games:
        best = min(((s, v) for (game, s), v in oink.items() if game == g), key=lambda x: x[1], default=None)
        auto = times.get((g, 'auto new'), [])
        ratio = f'{best[1] / max(auto):.2f}-{best[1] / min(auto):.2f}' if best and auto else '-'
        cells = ' | '.join(span(times.get((g, c), [])) for c in columns)
        print(f'| {g} | {cells} | {f"{best[1]:.3f} ({best[0]})" if best else "-"} | {ratio} |')
    print()
