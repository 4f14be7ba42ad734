"""Every row of ../shared/prob/oracles.tsv whose model is a UMB file, checked
by two warpcheck binaries on the GPU (relative precision 1e-9, sound),
alternately: value, error bound, iterations and the checking time of each,
and whether each value lies within its bound of the oracle's.

`models.py SHARED_PROB OLD NEW [ENGINE]` (ENGINE: gpu unless given)."""
import json, os, subprocess, sys


def check(binary, umb, text, engine):
    done = subprocess.run([binary, "--format", "json", "prob", umb, "--property", text,
                           "--engine", engine, "--precision", "1e-9", "--relative"],
                          capture_output=True, text=True)
    if done.returncode not in (0, 3):
        return None, (done.stdout + done.stderr).strip()[-300:]
    return json.loads(done.stdout)["results"][0], None


def main(shared, old, new, engine="gpu"):
    rows = [line.rstrip("\n").split("\t") for line in open(os.path.join(shared, "oracles.tsv"))]
    header, rows = rows[0], rows[1:]
    print("instance\tproperty\tbinary\titerations\tcheck_s\tvalue\tbound\twithin")
    for row in rows:
        row = dict(zip(header, row))
        umb = os.path.join(shared, row["instance"] + ".umb")
        if not os.path.isfile(umb):
            continue
        for name, binary in (("old", old), ("new", new)):
            result, error = check(binary, umb, row["property"], engine)
            if result is None:
                print(f"{row['instance']}\t{row['property']}\t{name}\tERROR {error}", flush=True)
                continue
            oracle = float(row["value"])
            value, bound = result["value"], result["error_bound"]
            within = (value is not None and bound is not None
                      and abs(value - oracle) <= bound + 1e-9 * abs(oracle) + 1e-12)
            print(f"{row['instance']}\t{row['property']}\t{name}\t{result['iterations']}"
                  f"\t{result['elapsed_seconds']:.4f}\t{value!r}\t{bound}\t{within}", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:5])
