"""Reads the .aut file that `warpcheck explore --write-aut` wrote for
Peterson-PT-3 into numpy arrays of sources and targets (pet3.npz)."""
import re
import sys

import numpy as np

with open(sys.argv[1]) as f:
    f.readline()
    data = f.read()
src = np.array(re.findall(r"\((\d+),", data), dtype=np.int64)
dst = np.array(re.findall(r", (\d+)\)", data), dtype=np.int64)
np.savez(sys.argv[2], src=src, dst=dst)
print(len(src), "edges")
