"""Writes a copy of stormpy's wheel without the parts that `import stormpy`,
building a model from PRISM or UMB, sparse model checking and
`analysis.get_maximal_end_components` never load (checked with the cp311
wheel on egl-5-2, egl-7-2 and csma-2-2): the dft, gspn, pars and pomdp
subpackages, the examples, and the libraries only they link
(libstorm-{conv,dft,gspn,pars,pomdp}, xerces; found with `readelf -d` from
every extension module that stays). The cp312 wheel then takes 28 MB as
`.whl.tar.xz` instead of 33, so that it fits beside the repository in one
device call (scripts/stormpy_env.sh installs it). RECORD loses the same
lines. Usage: trim_stormpy_wheel.py WHEEL OUT_WHEEL"""
import re, sys, zipfile

DROPPED = re.compile(r"^stormpy/(dft|gspn|pars|pomdp|examples)/"
                     r"|^stormpy\.libs/lib(storm-(conv|dft|gspn|pars|pomdp)|xerces-c)-")
source, target = sys.argv[1:3]
with zipfile.ZipFile(source) as wheel, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
    for item in wheel.infolist():
        if DROPPED.search(item.filename):
            continue
        data = wheel.read(item)
        if item.filename.endswith(".dist-info/RECORD"):
            lines = data.decode().splitlines(keepends=True)
            data = "".join(line for line in lines if not DROPPED.search(line)).encode()
        out.writestr(item, data)
