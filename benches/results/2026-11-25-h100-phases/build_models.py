"""Builds the benchmark models with stormpy into uncompressed UMB files, as
scripts/prob_bench.py and scripts/mec_bench.py do: python build_models.py
QVBS_DIR OUT_DIR NAME...; prints NAME, states, transitions, build seconds."""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../scripts"))
import mec_bench  # noqa: E402
import prob_bench  # noqa: E402

qvbs, out = sys.argv[1], sys.argv[2]
for name in sys.argv[3:]:
    start = time.perf_counter()
    if name in prob_bench.INSTANCES:
        model = prob_bench.build(qvbs, name, out)
    else:
        model = mec_bench.build(qvbs, name)
    built = time.perf_counter() - start
    prob_bench.export_umb(model, os.path.join(out, f"{name}.umb"))
    print(f"{name}\t{model.nr_states}\t{model.nr_transitions}\t{built:.1f}", flush=True)
