"""Prints `yes` when two PGSolver solution files (`paritysol N;` then
`vertex winner [strategy];` lines) give every vertex the same winner,
else `NO` and the first difference."""
import sys


def winners(path):
    found = {}
    with open(path) as solution:
        for line in solution:
            fields = line.replace(";", " ").split()
            if len(fields) >= 2 and fields[0] != "paritysol":
                found[int(fields[0])] = fields[1]
    return found


first, second = winners(sys.argv[1]), winners(sys.argv[2])
if first == second and first:
    print("yes")
else:
    differs = sorted(set(first) ^ set(second)) or [v for v in sorted(first) if first[v] != second[v]]
    print(f"NO ({len(first)} and {len(second)} vertices; first difference at {differs[:1]})")
