#!/usr/bin/env python3
"""Prints the PTX of every gpu.binary in an MLIR file.

--mlprog-lower-to-gpu embeds each kernel module's PTX as the escaped string
`assembly = "..."` of a #gpu.object; this undoes MLIR's string escapes
(\\XX hex bytes, \\\\, \\") so that the PTX can be read, FileChecked or fed to
ptxas.

  extract_ptx.py lowered.mlir [-o out.ptx] [--split DIR]

With --split, writes DIR/<binary name>.ptx per gpu.binary instead.
"""
import argparse
import os
import re
import sys

BINARY = re.compile(r'gpu\.binary\s+@([\w$.]+)')
ASSEMBLY = re.compile(r'assembly\s*=\s*"((?:[^"\\]|\\.)*)"')


def unescape(text):
    out = bytearray()
    i = 0
    while i < len(text):
        c = text[i]
        if c == '\\' and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt in '\\"':
                out.append(ord(nxt))
                i += 2
                continue
            if nxt == 'n':
                out.append(10)
                i += 2
                continue
            if nxt == 't':
                out.append(9)
                i += 2
                continue
            out += bytes.fromhex(text[i + 1:i + 3])
            i += 3
            continue
        out += c.encode()
        i += 1
    return out.decode().rstrip('\0')


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('input')
    parser.add_argument('-o', '--output', default='-')
    parser.add_argument('--split', metavar='DIR')
    args = parser.parse_args()
    with open(args.input) as f:
        lines = f.read().splitlines()
    found = []
    for line in lines:
        binary = BINARY.search(line)
        if not binary:
            continue
        for assembly in ASSEMBLY.finditer(line):
            found.append((binary.group(1), unescape(assembly.group(1))))
    if not found:
        sys.exit('%s: no gpu.binary with an assembly object' % args.input)
    if args.split:
        os.makedirs(args.split, exist_ok=True)
        for name, ptx in found:
            with open(os.path.join(args.split, name + '.ptx'), 'w') as f:
                f.write(ptx)
        return
    text = ''.join('// gpu.binary @%s\n%s\n' % item for item in found)
    if args.output == '-':
        sys.stdout.write(text)
    else:
        with open(args.output, 'w') as f:
            f.write(text)


if __name__ == '__main__':
    main()
