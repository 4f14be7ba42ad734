#!/usr/bin/env python3
"""Writes a network (warpcheck's .net format) with wide state vectors:
GROUPS groups of PROCESSES processes each, every process a chain of LENGTH
local states; the processes of a group step together (`tick_g`), so the
state space is LENGTH^GROUPS states, and a vector holds GROUPS * PROCESSES
local states (bits_for(LENGTH) bits each).

Usage: lockstep_net.py GROUPS PROCESSES LENGTH > model.net
"""
import sys

groups, processes, length = (int(a) for a in sys.argv[1:4])
print(f"// {groups} groups of {processes} processes in lockstep, chains of {length} states:")
print(f"// {length ** groups} states.")
for g in range(groups):
    for p in range(processes):
        chain = f" -tick_{g}-> ".join(f"s{s}" for s in range(length))
        print(f"process g{g}p{p} {{ init s0; {chain}; }}")
for g in range(groups):
    members = ", ".join(f"g{g}p{p}" for p in range(processes))
    print(f"sync tick_{g} : {members};")
