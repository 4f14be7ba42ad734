"""Writes a DTMC of BLOCKS blocks of SIZE states in a row as PRISM explicit
files OUT.tra and OUT.lab, the model of `blocks_in_a_row` in
tests/it/prob.rs with its leak: in each block a state moves on (0.5), back
(0.3), to the next block's first state (0.15; from the last block, to the
goal) or to a dead end (0.05). Label "goal" on the goal. Its read graph is
BLOCKS strongly connected components in a row.

`blocks.py BLOCKS SIZE OUT`"""
import sys


def main(blocks, size, out):
    blocks, size = int(blocks), int(size)
    states = blocks * size + 2
    goal, dead = states - 2, states - 1
    rows = []
    for state in range(goal):
        block, place = divmod(state, size)
        first = block * size
        exit_to = goal if block + 1 == blocks else first + size
        branches = {}
        for target, p in ((first + (place + 1) % size, 0.5), (first + (place + size - 1) % size, 0.3),
                          (exit_to, 0.15), (dead, 0.05)):
            branches[target] = branches.get(target, 0.0) + p
        rows.append(sorted(branches.items()))
    with open(out + ".tra", "w") as tra:
        tra.write(f"{states} {sum(len(r) for r in rows) + 2}\n")
        for state, row in enumerate(rows):
            tra.write("".join(f"{state} {t} {p!r}\n" for t, p in row))
        tra.write(f"{goal} {goal} 1.0\n{dead} {dead} 1.0\n")
    with open(out + ".lab", "w") as lab:
        lab.write('0="init" 1="goal"\n0: 0\n' + f"{goal}: 1\n")


if __name__ == "__main__":
    main(*sys.argv[1:4])
