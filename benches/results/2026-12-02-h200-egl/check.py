"""Checks egl_umb against Storm: for each N-L given, builds egl with stormpy
(2.0, as scripts/prob_bench.py builds it, with the labels that
../shared/prob/instances.tsv appends for egl-5-2),
exports it as an uncompressed UMB archive, and compares every member with the
one egl_umb writes, byte for byte (index.json: parsed, without `file-data`).

Usage: check.py EGL_PRISM EGL_UMB_BINARY WORK N-L..."""
import json, os, shutil, subprocess, sys, tarfile, time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../scripts"))
import prob_bench  # noqa: E402

LABELS = 'label "unfairA" = !kA & kB; label "done" = phase=4;'
egl, binary, work = sys.argv[1:4]
failed = False
for instance in sys.argv[4:]:
    pairs, bits = instance.split("-")
    name = f"egl-{instance}"
    prob_bench.INSTANCES[name] = ("egl.prism", f"N={pairs},L={bits}", LABELS, None, "")
    start = time.perf_counter()
    model = prob_bench.build(os.path.dirname(egl), name, work)
    storm_dir, ours_dir = os.path.join(work, name + "-storm"), os.path.join(work, name + "-ours")
    for folder in (storm_dir, ours_dir):
        shutil.rmtree(folder, ignore_errors=True)
    umb = os.path.join(work, name + ".umb")
    prob_bench.export_umb(model, umb)
    built = time.perf_counter() - start
    with tarfile.open(umb) as archive:
        archive.extractall(storm_dir)
        members = [m.name for m in archive.getmembers() if m.isfile()]
    start = time.perf_counter()
    subprocess.run([binary, pairs, bits, ours_dir], check=True, capture_output=True)
    ours = time.perf_counter() - start
    differ = []
    for member in members:
        mine, storms = os.path.join(ours_dir, member), os.path.join(storm_dir, member)
        if member == "index.json":
            load = lambda path: {k: v for k, v in json.load(open(path)).items() if k != "file-data"}
            same = os.path.exists(mine) and load(mine) == load(storms)
        else:
            same = os.path.exists(mine) and open(mine, "rb").read() == open(storms, "rb").read()
        if not same:
            differ.append(member)
    print(f"{name}\tstates {model.nr_states}\ttransitions {model.nr_transitions}\tmembers {len(members)}"
          f"\tdiffering {differ or 'none'}\tstorm built in {built:.1f} s\tegl_umb {ours:.2f} s", flush=True)
    failed |= bool(differ)
    for folder in (storm_dir, ours_dir):
        shutil.rmtree(folder, ignore_errors=True)
    os.remove(umb)
sys.exit(1 if failed else 0)
