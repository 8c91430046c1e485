#!/usr/bin/env python3
"""Numerics of tp.all_to_all against numpy: every entry of a partitioned
program (test/Runtime/all-to-all-numerics.mlir) reshards one global tensor
from a split on one dim to a split on another. Rank r is given its slice of
the global tensor in the source split; its result, after the async-TP
pipeline and equal to the program run as given, must be, bit for bit,
numpy's slice r of the same tensor in the target split.

    all_to_all_numerics.py --tp-run BIN --program RANKS FILE [...]
                           [--backend cpu|cuda] [--transport loopback|mpi|nccl]

Prints one line per entry and group size and a final "passed N of N" line;
exits 1 on any failure.
"""
import argparse
import os
import tempfile

import numpy as np

from numerics_common import TRANSPORT_HELP, add_transport, finish, report, run, to_bf16, transport_args

# entry: (global shape, element type, source split dim, target split dim)
ENTRIES = {
    "rows_to_cols_f32": ((16, 12), "f32", 0, 1),
    "rows_to_cols_bf16": ((16, 12), "bf16", 0, 1),
    "rows_to_cols_i32": ((16, 12), "i32", 0, 1),
    "seq_to_heads_f32": ((16, 8, 4), "f32", 0, 1),
    "seq_to_heads_bf16": ((16, 8, 4), "bf16", 0, 1),
    "seq_to_heads_i32": ((16, 8, 4), "i32", 0, 1),
    "heads_to_seq_f32": ((16, 8, 4), "f32", 1, 0),
}


def global_tensor(shape, dt, rng):
    if dt == "i32":
        # The full range: an exchange that rounds through a float would not
        # keep these.
        return rng.integers(-2**31, 2**31 - 1, size=shape, dtype=np.int32)
    values = rng.standard_normal(shape).astype(np.float32)
    return to_bf16(values) if dt == "bf16" else values


def check(tp_run, path, g, name, tmp, backend):
    shape, dt, src, dst = ENTRIES[name]
    rng = np.random.default_rng(100 * g + len(name))
    x = global_tensor(shape, dt, rng)
    inputs = os.path.join(tmp, f"in_{name}_{g}")
    dumps = os.path.join(tmp, f"out_{name}_{g}")
    for r, piece in enumerate(np.split(x, g, axis=src)):
        os.makedirs(os.path.join(inputs, f"rank{r}"))
        np.save(os.path.join(inputs, f"rank{r}", "arg0.npy"), piece)
    # Through the pipeline, and against the program as given (nothing fuses
    # here; the pipeline must leave the exchange intact).
    result = run([tp_run, path, "--entry", name, "--ranks", str(g),
                  "--input-dir", inputs, "--dump-dir", dumps,
                  "--pipeline", "tp-async-tp-pipeline", "--compare-pipeline", ""] + backend)
    if result.returncode != 0:
        return False, result.stdout
    elements = 0
    for r, expected in enumerate(np.split(x, g, axis=dst)):
        got = np.load(os.path.join(dumps, f"rank{r}", "result0.npy"))
        if got.shape != expected.shape:
            return False, f"rank {r}: shape {got.shape}, numpy {expected.shape}"
        # bf16 results come back as f32: compare the values bit for bit.
        if dt == "i32":
            same = got.dtype == np.int32 and np.array_equal(got, expected)
        else:
            same = np.array_equal(got.astype(np.float32).view(np.uint32),
                                  expected.astype(np.float32).view(np.uint32))
        if not same:
            wrong = int(np.count_nonzero(got != expected))
            return False, f"rank {r}: {wrong} of {expected.size} elements differ"
        elements += expected.size
    return True, f"{elements} elements on {g} ranks bit-exact"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tp-run", required=True)
    parser.add_argument("--program", nargs=2, action="append", required=True,
                        metavar=("RANKS", "FILE"))
    parser.add_argument("--backend", default="cpu")
    add_transport(parser, TRANSPORT_HELP + "; cuda: loopback or nccl")
    args = parser.parse_args()
    backend = ["--backend", args.backend] + transport_args(args)
    total = passed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for ranks, path in args.program:
            g = int(ranks)
            for name in ENTRIES:
                total += 1
                ok, detail = check(args.tp_run, path, g, name, tmp, backend)
                passed += ok
                report(f"{name} g={g}: ok, {detail}" if ok else f"{name} g={g}: FAILED",
                       ok, detail)
    finish(passed, total)


if __name__ == "__main__":
    main()
