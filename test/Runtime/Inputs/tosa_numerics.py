#!/usr/bin/env python3
"""TOSA glue, compiled: an MLP whose activation a frontend wrote in TOSA
(tosa.add with a broadcast bias, tosa.sigmoid, tosa.mul: silu), partitioned
by upstream shard-partition, fused by tp-async-tp-pipeline around the TOSA
ops, and executed by tp-run, whose lowering (tp-lower-to-llvm) lowers the
TOSA ops through upstream's conversions.

For each group size and element type: partition tosa_mlp.mlir.in, check the
pipeline fuses both collectives and keeps the TOSA glue, write seeded
per-rank shards of the global inputs (rank<r>/arg<i>.npy; the replicated
accumulator is the same on every rank), run tp-run fused and compare with the
unfused run (--compare-pipeline ''), then compare every rank's dumped result
(rank<r>/result0.npy) with numpy computing the global MLP from the same
shards. The same again with the TOSA lowered before fusion
(--pipeline tp-lower-tosa,tp-async-tp-pipeline).

    tosa_numerics.py --mlir-opt BIN --tp-opt BIN --tp-run BIN
                     [--ranks 1 2 4 8] [--dtypes f32 bf16]
                     [--transport mpi]

Prints one line per run and a final "passed N of N" line; exits 1 on any
failure. Needs numpy.
"""
import argparse
import os
import re
import tempfile

import numpy as np

from numerics_common import add_transport, compare, finish, report, run, to_bf16, transport_args

HERE = os.path.dirname(os.path.abspath(__file__))
M, K, H, N = 16, 32, 48, 32  # tokens, model, hidden, model (global)
# Largest |fused - numpy| / max |numpy| accepted: bf16 rounds the stored
# hidden activations (h, the bias sum, sigmoid, the product) to 8 bits.
TOLERANCE = {"f32": 1e-4, "bf16": 3e-2}


def shards(g, rng, dt):
    """Per-rank inputs (rank r's list, in argument order) for group size g:
    x rows, w1 columns, b1 columns, w2 rows, o1 columns, o2 replicated."""
    def value(shape):
        v = rng.uniform(-1, 1, shape).astype(np.float32)
        return to_bf16(v) if dt == "bf16" else v
    o2 = value((M, N))
    ranks = []
    for _ in range(g):
        ranks.append([value((M // g, K)), value((K, H // g)), value((1, H // g)),
                      value((H // g, N)), value((M, H // g)), o2])
    return ranks


def reference(ins):
    """The global MLP from the shards, in float64; rank r's rows of y."""
    g = len(ins)
    cat = lambda i, axis: np.concatenate([r[i].astype(np.float64) for r in ins], axis)
    x, w1, b1, w2, o1 = cat(0, 0), cat(1, 1), cat(2, 1), cat(3, 0), cat(4, 1)
    o2 = ins[0][5].astype(np.float64)
    a = x @ w1 + o1 + b1
    y = (a / (1.0 + np.exp(-a))) @ w2 + o2
    rows = M // g
    return [y[r * rows:(r + 1) * rows] for r in range(g)]


def check(g, dt, args, tmp):
    with open(os.path.join(HERE, "tosa_mlp.mlir.in")) as f:
        source = f.read().replace("@G@", str(g)).replace("@DT@", dt)
    partitioned = run([args.mlir_opt, "-", "--pass-pipeline=builtin.module("
                       "func.func(shard-partition,canonicalize,cse))"], input=source)
    if partitioned.returncode != 0:
        return False, "upstream shard-partition failed\n" + partitioned.stdout
    path = os.path.join(tmp, f"tosa_mlp_{g}_{dt}.mlir")
    with open(path, "w") as f:
        f.write(partitioned.stdout)
    # Both collectives fuse (they fold away on one rank); the glue stays TOSA.
    fused = run([args.tp_opt, path, "--tp-async-tp-pipeline"])
    count = len(re.findall(r"tp\.(all_gather_matmul|matmul_reduce_scatter)", fused.stdout))
    glue = sorted(set(re.findall(r"tosa\.(add|sigmoid|mul)\b", fused.stdout)))
    if fused.returncode != 0 or count != (2 if g > 1 else 0) or glue != ["add", "mul", "sigmoid"]:
        return False, f"expected 2 fused ops and the TOSA glue, found {count}, {glue}\n{fused.stdout}"
    rng = np.random.default_rng(100 * g + len(dt))
    ins = shards(g, rng, dt)
    inputs = os.path.join(tmp, f"in_{g}_{dt}")
    for r, values in enumerate(ins):
        os.makedirs(os.path.join(inputs, f"rank{r}"))
        for i, v in enumerate(values):
            np.save(os.path.join(inputs, f"rank{r}", f"arg{i}.npy"), v)
    details = []
    # TOSA lowered by tp-lower-to-llvm (the default), and before the pipeline.
    for tag, pipeline in [("", "tp-async-tp-pipeline"),
                          ("early ", "tp-lower-tosa,tp-async-tp-pipeline")]:
        dumps = os.path.join(tmp, f"out_{g}_{dt}_{len(tag)}")
        ok, error, output = compare([args.tp_run, path, "--ranks", str(g), "--input-dir", inputs,
                                     "--dump-dir", dumps, "--pipeline", pipeline,
                                     "--compare-pipeline", ""] + transport_args(args))
        if not ok:
            return False, output
        worst = 0.0
        for r, expected in enumerate(reference(ins)):
            got = np.load(os.path.join(dumps, f"rank{r}", "result0.npy")).astype(np.float64)
            if got.shape != expected.shape:
                return False, f"{tag}rank {r}: shape {got.shape}, numpy {expected.shape}"
            worst = max(worst, np.abs(got - expected).max() / max(np.abs(expected).max(), 1e-30))
        if worst > TOLERANCE[dt]:
            return False, f"{tag}against numpy: normalized error {worst:.2e} > {TOLERANCE[dt]:.0e}"
        details.append(f"{tag}fused vs unfused {error}, vs numpy {worst:.2e}")
    return True, "; ".join(details)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mlir-opt", required=True)
    parser.add_argument("--tp-opt", required=True)
    parser.add_argument("--tp-run", required=True)
    parser.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--dtypes", nargs="+", default=["f32", "bf16"])
    add_transport(parser)
    args = parser.parse_args()
    total = passed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for g in args.ranks:
            for dt in args.dtypes:
                total += 1
                ok, detail = check(g, dt, args, tmp)
                passed += ok
                report(f"tosa_mlp g={g} {dt}: ok ({detail})" if ok
                       else f"tosa_mlp g={g} {dt}: FAILED", ok, detail)
    finish(passed, total)


if __name__ == "__main__":
    main()
