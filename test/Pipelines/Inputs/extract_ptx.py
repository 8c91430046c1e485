#!/usr/bin/env python3
"""Writes the PTX of every `gpu.binary` in an MLIR file (as
tp-lower-glue-to-nvvm leaves them: one object per kernel module, assembly
format) to DIR/NAME.ptx, optionally checks each with ptxas, and prints how
many there were and how many ptxas accepted.

    extract_ptx.py FILE DIR [--ptxas PATH --arch sm_90]
"""
import argparse
import os
import re
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("dir")
    parser.add_argument("--ptxas")
    parser.add_argument("--arch", default="sm_90")
    args = parser.parse_args()
    with open(args.file) as f:
        text = f.read()
    os.makedirs(args.dir, exist_ok=True)
    kernels = accepted = 0
    # MLIR prints the assembly as a string with \XX escapes for bytes.
    for m in re.finditer(r'gpu\.binary @(\w+)[^\n]*?assembly = "((?:[^"\\]|\\.)*)"', text):
        ptx = re.sub(r"\\([0-9A-Fa-f]{2})", lambda h: chr(int(h.group(1), 16)), m.group(2))
        path = os.path.join(args.dir, m.group(1) + ".ptx")
        with open(path, "w") as f:
            f.write(ptx)
        kernels += 1
        if args.ptxas:
            run = subprocess.run([args.ptxas, "-arch=" + args.arch, path, "-o", os.devnull],
                                 capture_output=True, text=True)
            if run.returncode == 0:
                accepted += 1
            else:
                sys.stdout.write(f"ptxas rejected {path}:\n{run.stderr}")
    print(f"{kernels} kernels" + (f", ptxas ({args.arch}) accepted {accepted}" if args.ptxas else ""))
    return 0 if accepted == kernels or not args.ptxas else 1


if __name__ == "__main__":
    sys.exit(main())
