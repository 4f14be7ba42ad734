#!/usr/bin/env python3
"""Registers per kernel of a cubin (the EIATTR_REGCOUNT records of its
.nv.info section), optionally only the kernels whose name contains a word:
    python3 registers.py FILE.cubin [WORD]"""
import struct
import sys

data = open(sys.argv[1], "rb").read()
only = sys.argv[2] if len(sys.argv) > 2 else ""
section_headers = struct.unpack_from("<Q", data, 0x28)[0]
entry_size, count, names_index = struct.unpack_from("<HHH", data, 0x3A)
# Elf64_Shdr: name, type, flags, addr, offset, size, link, info, align, entsize.
sections = [struct.unpack_from("<IIQQQQIIQQ", data, section_headers + i * entry_size) for i in range(count)]


def text_at(base, offset):
    end = data.index(b"\0", base + offset)
    return data[base + offset:end].decode()


names = [text_at(sections[names_index][4], s[0]) for s in sections]
symtab = next(s for s, n in zip(sections, names) if n == ".symtab")
strtab = sections[symtab[6]]
symbols = [text_at(strtab[4], struct.unpack_from("<I", data, symtab[4] + i * 24)[0]) for i in range(symtab[5] // 24)]
# Record formats: no value (2 bytes), a byte or a half-word (4 bytes), or
# a size-prefixed value.
EIFMT_NVAL, EIFMT_BVAL, EIFMT_HVAL, EIFMT_SVAL = 1, 2, 3, 4
EIATTR_REGCOUNT = 0x2F
for section, name in zip(sections, names):
    if name != ".nv.info":
        continue
    at, end = section[4], section[4] + section[5]
    while at < end:
        form, attribute = data[at], data[at + 1]
        if form == EIFMT_SVAL:
            size = struct.unpack_from("<H", data, at + 2)[0]
            if attribute == EIATTR_REGCOUNT:
                symbol, registers = struct.unpack_from("<II", data, at + 4)
                if only in symbols[symbol]:
                    print(f"{symbols[symbol]}\t{registers}")
            at += 4 + size
        elif form in (EIFMT_BVAL, EIFMT_HVAL):
            at += 4
        elif form == EIFMT_NVAL:
            at += 2
        else:
            sys.exit(f"unknown record format {form} in .nv.info")
