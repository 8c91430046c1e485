#!/usr/bin/env python3
"""Grids of dynamic size (`shard.grid @tp(shape = ?)`), end to end.

Each program is written in the global view with upstream's shard dialect on a
grid whose size is unknown until run time. Upstream `shard-partition` turns
it into one per-rank program with dynamic shard shapes; the pipeline imports
and fuses it (it must fuse the expected collectives: the all-gather through
the cast upstream puts before the matmul); tp-run runs it on N ranks, taking
the grid size from --ranks, fused against unfused; and every rank's results
are compared with numpy computing the global program and taking that rank's
shard.

    dynamic_grid_numerics.py --mlir-opt BIN --tp-opt BIN --tp-run BIN
                             PROGRAM... [--ranks 2 4] [--dtypes f32 bf16]
                             [--transport mpi]

Prints one line per run and "passed N of N"; exits 1 on any failure.
"""
import argparse
import os
import re

import numpy as np

from numerics_common import add_transport, compare, run, run_matrix, to_bf16, transport_args

# A sequence-parallel MLP: rows of x gathered into a column-parallel matmul,
# then a row-parallel matmul reduce-scattered back to rows.
MLP = """shard.grid @tp(shape = ?)
func.func @mlp(%x: tensor<48x32x@DT@>, %w1: tensor<32x48x@DT@>, %w2: tensor<48x32x@DT@>,
               %o1: tensor<48x48x@DT@>, %o2: tensor<48x32x@DT@>) -> tensor<48x32x@DT@> {
  %rows = shard.sharding @tp split_axes = [[0]] : !shard.sharding
  %repl = shard.sharding @tp split_axes = [[]] : !shard.sharding
  %cols = shard.sharding @tp split_axes = [[], [0]] : !shard.sharding
  %x0 = shard.shard %x to %rows : tensor<48x32x@DT@>
  %x1 = shard.shard %x0 to %repl annotate_for_users : tensor<48x32x@DT@>
  %w1s = shard.shard %w1 to %cols : tensor<32x48x@DT@>
  %w1u = shard.shard %w1s to %cols annotate_for_users : tensor<32x48x@DT@>
  %o1s = shard.shard %o1 to %cols : tensor<48x48x@DT@>
  %o1u = shard.shard %o1s to %cols annotate_for_users : tensor<48x48x@DT@>
  %h = linalg.matmul ins(%x1, %w1u : tensor<48x32x@DT@>, tensor<32x48x@DT@>) outs(%o1u : tensor<48x48x@DT@>) -> tensor<48x48x@DT@>
  %h1 = shard.shard %h to %cols : tensor<48x48x@DT@>
  %h2 = shard.shard %h1 to %cols annotate_for_users : tensor<48x48x@DT@>
  %w2s = shard.shard %w2 to %rows : tensor<48x32x@DT@>
  %w2u = shard.shard %w2s to %rows annotate_for_users : tensor<48x32x@DT@>
  %o2s = shard.shard %o2 to %repl : tensor<48x32x@DT@>
  %o2u = shard.shard %o2s to %repl annotate_for_users : tensor<48x32x@DT@>
  %y = linalg.matmul ins(%h2, %w2u : tensor<48x48x@DT@>, tensor<48x32x@DT@>) outs(%o2u : tensor<48x32x@DT@>) -> tensor<48x32x@DT@>
  %y1 = shard.shard %y to %repl : tensor<48x32x@DT@>
  %y2 = shard.shard %y1 to %rows annotate_for_users : tensor<48x32x@DT@>
  return %y2 : tensor<48x32x@DT@>
}
"""

# A reduction over a split dim: partial row sums, all-reduced.
ROWSUM = """shard.grid @tp(shape = ?)
func.func @rowsum(%x: tensor<8x48x@DT@>, %acc: tensor<8x@DT@>) -> tensor<8x@DT@> {
  %cols = shard.sharding @tp split_axes = [[], [0]] : !shard.sharding
  %repl = shard.sharding @tp split_axes = [[]] : !shard.sharding
  %x0 = shard.shard %x to %cols : tensor<8x48x@DT@>
  %x1 = shard.shard %x0 to %cols annotate_for_users : tensor<8x48x@DT@>
  %a0 = shard.shard %acc to %repl : tensor<8x@DT@>
  %a1 = shard.shard %a0 to %repl annotate_for_users : tensor<8x@DT@>
  %s = linalg.reduce ins(%x1 : tensor<8x48x@DT@>) outs(%a1 : tensor<8x@DT@>) dimensions = [1]
    (%a: @DT@, %b: @DT@) {
      %c = arith.addf %a, %b : @DT@
      linalg.yield %c : @DT@
    }
  %s0 = shard.shard %s to %repl : tensor<8x@DT@>
  return %s0 : tensor<8x@DT@>
}
"""

# name: (template, [(global shape, split dim or None)], output
# (global shape, split dim or None), numpy of the global inputs, fusions)
PROGRAMS = {
    "mlp": (MLP, [((48, 32), 0), ((32, 48), 1), ((48, 32), 0), ((48, 48), 1), ((48, 32), None)],
            ((48, 32), 0), lambda x, w1, w2, o1, o2: (x @ w1 + o1) @ w2 + o2, 2),
    "rowsum": (ROWSUM, [((8, 48), 1), ((8,), None)], ((8,), None),
               lambda x, acc: x.sum(1) + acc, 0),
}
# bf16 rounds every stored intermediate (inputs, products) to 8 bits.
TOLERANCE = {"f32": 1e-5, "bf16": 3e-2}


def shard(value, dim, g, r):
    if dim is None:
        return value
    n = value.shape[dim] // g
    return np.take(value, range(r * n, (r + 1) * n), axis=dim)


def check(name, g, dt, args, tmp):
    template, inputs, (out_shape, out_dim), ref, fusions = PROGRAMS[name]
    tag = f"{name}_{g}_{dt}"
    partitioned = run([args.mlir_opt, "-", "--pass-pipeline=builtin.module("
                       "func.func(shard-partition,canonicalize,cse))"],
                      input=template.replace("@DT@", dt))
    if partitioned.returncode != 0:
        return False, "upstream shard-partition failed\n" + partitioned.stdout
    path = os.path.join(tmp, tag + ".mlir")
    with open(path, "w") as f:
        f.write(partitioned.stdout)
    if "shape = ?" not in partitioned.stdout:
        return False, "the partitioned grid is not dynamic\n" + partitioned.stdout
    stats = run([args.tp_opt, path, "--tp-async-tp-pipeline=stats", "-o", os.devnull])
    m = re.search(r"(\d+) all-gather-matmul.*?(\d+) matmul-reduce-scatter", stats.stdout)
    if stats.returncode != 0 or not m or int(m.group(1)) + int(m.group(2)) != fusions:
        return False, f"expected {fusions} fusions\n{stats.stdout}"

    rng = np.random.default_rng(10 * g + len(name))
    values = [rng.uniform(-1, 1, shape).astype(np.float32) for shape, _ in inputs]
    if dt == "bf16":
        values = [to_bf16(v) for v in values]
    folder, dumps = os.path.join(tmp, "in_" + tag), os.path.join(tmp, "out_" + tag)
    shapes = []
    for r in range(g):
        os.makedirs(os.path.join(folder, f"rank{r}"))
        for i, (v, (_, dim)) in enumerate(zip(values, inputs)):
            local = shard(v, dim, g, r)
            np.save(os.path.join(folder, f"rank{r}", f"arg{i}.npy"), local)
            if r == 0:
                shapes += ["--arg-shape", f"{i}=" + "x".join(str(d) for d in local.shape)]
    ok, error, output = compare([args.tp_run, path, "--ranks", str(g), "--input-dir", folder,
                                 "--dump-dir", dumps, "--pipeline", "tp-async-tp-pipeline",
                                 "--compare-pipeline", ""] + shapes + transport_args(args))
    if not ok:
        return False, output
    expected = ref(*[v.astype(np.float64) for v in values])
    worst = 0.0
    for r in range(g):
        got = np.load(os.path.join(dumps, f"rank{r}", "result0.npy")).astype(np.float64)
        e = shard(expected, out_dim, g, r)
        if got.shape != e.shape:
            return False, f"rank {r}: shape {got.shape}, numpy {e.shape}"
        worst = max(worst, np.abs(got - e).max() / np.abs(expected).max())
    if worst > TOLERANCE[dt]:
        return False, f"against numpy: normalized error {worst:.2e} > {TOLERANCE[dt]:.0e}"
    return True, f"{fusions} fused; fused vs unfused {error}, vs numpy {worst:.2e}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("programs", nargs="+", choices=sorted(PROGRAMS))
    parser.add_argument("--mlir-opt", required=True)
    parser.add_argument("--tp-opt", required=True)
    parser.add_argument("--tp-run", required=True)
    parser.add_argument("--ranks", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--dtypes", nargs="+", default=["f32", "bf16"])
    add_transport(parser)
    args = parser.parse_args()
    run_matrix(args.programs, args.ranks, args.dtypes,
               lambda name, g, dt, tmp: check(name, g, dt, args, tmp))


if __name__ == "__main__":
    main()
