#!/usr/bin/env python3
"""Processor time (user + system) of two binaries on one thread, 5
interleaved rounds, best and median, on the models given as NAME:CAP
(0: no cap) of ../shared/mcc.

Usage: pair.py FIRST_BINARY SECOND_BINARY NAME:CAP..."""
import os, subprocess, sys, json, statistics
bins = sys.argv[1:3]; models = sys.argv[3:]
res = {}
for r in range(5):
    for m, cap in [x.split(':') for x in models]:
        for b in bins:
            cmd = [b, '--format', 'json', 'check', f'/work/shared/mcc/{m}/model.pnml', '--engine', 'cpu', '--threads', '1'] + (['--max-states', cap] if cap != '0' else [])
            c = subprocess.Popen(cmd, stdout=subprocess.PIPE); c.stdout.read(); _, _, u = os.wait4(c.pid, 0)
            res.setdefault((m, b), []).append(u.ru_utime + u.ru_stime)
for m, cap in [x.split(':') for x in models]:
    a, b = res[(m, bins[0])], res[(m, bins[1])]
    print(m, 'best', round(min(a),2), round(min(b),2), round(min(b)/min(a),3), 'median', round(statistics.median(a),2), round(statistics.median(b),2), round(statistics.median(b)/statistics.median(a),3))
