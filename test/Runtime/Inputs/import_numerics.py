#!/usr/bin/env python3
"""Numerics of the import forms: upstream MLIR partitions an annotated source
(shard-partition), tp's pipeline imports and fuses it, and tp-run executes the
result and the unfused import on the same inputs, comparing every result on
every rank.

    import_numerics.py --mlir-opt BIN --tp-opt BIN --tp-run BIN TEMPLATE...
                       [--ranks 1 2 3 4 8] [--dtypes f32 bf16]
                       [--transport mpi]

A template is `upstream/NAME.mlir.in` with @G@ (tensor-parallel group size)
and @DT@ (element type) markers. Prints one line per run and a final
"passed N of N" line; exits 1 on any failure.
"""
import argparse
import os
import re
import tempfile

from numerics_common import add_transport, compare, finish, report, run, transport_args

HERE = os.path.dirname(os.path.abspath(__file__))

# name: (fusions expected for g, ranks per group size, extra tp-run args for
# g, pipeline options). The plain row-parallel layer's all-reduce fuses once
# sequence parallelism splits it into a reduce-scatter (fused) and the
# all-gather that rebuilds its replicated output (left unfused: it feeds the
# return).
TEMPLATES = {
    "seqpar_mlp": (lambda g: 2, 1, lambda g: [], ""),
    "qkv": (lambda g: 1, 1, lambda g: [], ""),
    "rowwise_allreduce": (lambda g: 1, 1, lambda g: [], "sequence-parallel"),
    "linear3d_seqpar": (lambda g: 2, 1, lambda g: [], ""),
    "grid2d": (lambda g: 1, 2, lambda g: [], ""),
    "dynamic_tokens": (lambda g: 1, 1, lambda g: ["--arg-shape", "0=6x32",
                                                  "--arg-shape", f"2={6 * g}x{48 // g}"], ""),
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("templates", nargs="+", choices=sorted(TEMPLATES))
    parser.add_argument("--mlir-opt", required=True)
    parser.add_argument("--tp-opt", required=True)
    parser.add_argument("--tp-run", required=True)
    parser.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 3, 4, 8])
    parser.add_argument("--dtypes", nargs="+", default=["f32", "bf16"])
    add_transport(parser)
    args = parser.parse_args()

    total = passed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.templates:
            fusions, per_group, extra, options = TEMPLATES[name]
            pipeline = "tp-async-tp-pipeline" + (f"{{{options}}}" if options else "")
            with open(os.path.join(HERE, "upstream", name + ".mlir.in")) as f:
                template = f.read()
            for g in args.ranks:
                for dt in args.dtypes:
                    total += 1
                    tag = f"{name} g={g} {dt}"
                    source = template.replace("@G@", str(g)).replace("@DT@", dt)
                    partitioned = run([args.mlir_opt, "-", "--pass-pipeline=builtin.module("
                                       "func.func(shard-partition,canonicalize,cse))"],
                                      input=source)
                    if partitioned.returncode != 0:
                        report(f"{tag}: upstream shard-partition FAILED", False, partitioned.stdout)
                        continue
                    path = os.path.join(tmp, f"{name}_{g}_{dt}.mlir")
                    with open(path, "w") as f:
                        f.write(partitioned.stdout)
                    stats = run([args.tp_opt, path, f"--pass-pipeline=builtin.module("
                                 f"{pipeline.replace('}', ' stats}') if options else pipeline + '{stats}'})",
                                 "-o", os.devnull])
                    m = re.search(r"(\d+) all-gather-matmul.*?(\d+) matmul-reduce-scatter"
                                  r".*?(\d+) collectives left unfused", stats.stdout)
                    fused = int(m.group(1)) + int(m.group(2)) if m else -1
                    # A group of one has no collectives left after canonicalize.
                    expected = fusions(g) if g > 1 else 0
                    unfused = "1" if options and g > 1 else "0"
                    if not m or fused != expected or m.group(3) != unfused:
                        report(f"{tag}: expected {expected} fusions", False, stats.stdout)
                        continue
                    ok, error, output = compare(
                        [args.tp_run, path, "--ranks", str(g * per_group), "--seed", str(g),
                         "--pipeline", pipeline, "--compare-pipeline", ""]
                        + extra(g) + transport_args(args))
                    passed += ok
                    report(f"{tag}: ok, {expected} fused ({error})" if ok else f"{tag}: FAILED",
                           ok, output)
    finish(passed, total)


if __name__ == "__main__":
    main()
