"""Writes a copy of stormpy's wheel without the parts a DTMC check from UMB
never loads (the dft, gspn, pars and pomdp subpackages, the examples, and the
libraries only they link: libstorm-{conv,dft,gspn,pars,pomdp}, xerces), so
that the wheel fits beside the repository in one device call. RECORD loses
the same lines. Usage: trim_wheel.py WHEEL OUT_WHEEL"""
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
