#!/usr/bin/env python3
"""All-to-all fused with matmuls, end to end against numpy.

Two per-rank programs, run by tp-run through tp-async-tp-pipeline (and as
written, which must agree), compared with numpy's *unsharded* computation:

- `ulysses`: a Ulysses attention block. Each rank holds a slice of the
  sequence; it projects Q, K and V, exchanges them (sequence -> heads), runs
  softmax attention for its heads over the whole sequence, exchanges the
  result back (heads -> sequence) and projects it. The exchange before the
  output projection fuses: each arriving head group is a K-partial of the
  projection. The others get remarks.
- `moe`: an expert-parallel MoE layer with top-1 routing given as an input
  permutation. Each rank dispatches its tokens, grouped by expert, to the
  experts' ranks, runs its experts' FFNs (each its own weights) and sends the
  results back. The dispatch fuses with the experts' first GEMM, each
  arriving block multiplied by its expert's weight.

    exchange_numerics.py --tp-opt BIN --tp-run BIN ulysses|moe... [--ranks 2 4 8]
                         [--dtypes f32 bf16] [--transport mpi]

Prints one line per case and "passed N of N"; exits 1 on any failure.
"""
import argparse
import re

import numpy as np

from numerics_common import add_transport, check_against_numpy, run_matrix

PIPELINE = "tp-async-tp-pipeline"
TOLERANCE = {"f32": 1e-4, "bf16": 3e-2}


def t(shape, dt):
    return "tensor<" + "x".join(str(d) for d in shape) + f"x{dt}>"


def softmax_rows(name, x, shape, dt):
    """Softmax along the last dim of the 3-D %x, as linalg glue."""
    h, s, c = shape
    full, rows = t(shape, dt), t([h, s], dt)
    return f"""  %{name}_ninf = arith.constant -1.0e+30 : {dt}
  %{name}_zero = arith.constant 0.0 : {dt}
  %{name}_e = tensor.empty() : {rows}
  %{name}_mi = linalg.fill ins(%{name}_ninf : {dt}) outs(%{name}_e : {rows}) -> {rows}
  %{name}_max = linalg.reduce ins(%{x} : {full}) outs(%{name}_mi : {rows}) dimensions = [2]
    (%a: {dt}, %b: {dt}) {{
      %m = arith.maximumf %a, %b : {dt}
      linalg.yield %m : {dt}
    }}
  %{name}_f = tensor.empty() : {full}
  %{name}_mb = linalg.broadcast ins(%{name}_max : {rows}) outs(%{name}_f : {full}) dimensions = [2]
  %{name}_d = arith.subf %{x}, %{name}_mb : {full}
  %{name}_x = math.exp %{name}_d : {full}
  %{name}_si = linalg.fill ins(%{name}_zero : {dt}) outs(%{name}_e : {rows}) -> {rows}
  %{name}_sum = linalg.reduce ins(%{name}_x : {full}) outs(%{name}_si : {rows}) dimensions = [2]
    (%a: {dt}, %b: {dt}) {{
      %m = arith.addf %a, %b : {dt}
      linalg.yield %m : {dt}
    }}
  %{name}_sb = linalg.broadcast ins(%{name}_sum : {rows}) outs(%{name}_f : {full}) dimensions = [2]
  %{name} = arith.divf %{name}_x, %{name}_sb : {full}
"""


def ulysses(g, dt):
    sl, heads, d, dm = 4, 2 * g, 8, 16  # sequence per rank, heads, head dim, model dim
    s, hl = sl * g, 2  # whole sequence, heads per rank
    x, w, wo = t([sl, dm], dt), t([dm, heads * d], dt), t([heads * d, dm], dt)
    p, e = t([sl, heads * d], dt), t([s, hl * d], dt)
    e3, h3 = t([s, hl, d], dt), t([hl, s, d], dt)
    sc, y = t([hl, s, s], dt), t([sl, dm], dt)
    text = f"func.func @main(%x: {x}, %wq: {w}, %wk: {w}, %wv: {w}, %wo: {wo}) -> {y} {{\n"
    for n in "qkv":
        text += f"""  %{n}p = tp.matmul %x, %w{n} : {x}, {w} -> {p}
  %{n}e = tp.all_to_all %{n}p on @tp axes = [0] split = 1 concat = 0 : {p} -> {e}
  %{n}3 = tensor.expand_shape %{n}e [[0], [1, 2]] output_shape [{s}, {hl}, {d}] : {e} into {e3}
  %{n}t0 = tensor.empty() : {h3}
  %{n}h = linalg.transpose ins(%{n}3 : {e3}) outs(%{n}t0 : {h3}) permutation = [1, 0, 2]
"""
    text += f"""  %raw = tp.batch_matmul %qh, %kh transpose_b : {h3}, {h3} -> {sc}
  %scale = arith.constant dense<{1 / np.sqrt(d):.9e}> : {sc}
  %scores = arith.mulf %raw, %scale : {sc}
{softmax_rows("prob", "scores", [hl, s, s], dt)}  %oh = tp.batch_matmul %prob, %vh : {sc}, {h3} -> {h3}
  %ot0 = tensor.empty() : {e3}
  %o3 = linalg.transpose ins(%oh : {h3}) outs(%ot0 : {e3}) permutation = [1, 0, 2]
  %o = tensor.collapse_shape %o3 [[0], [1, 2]] : {e3} into {e}
  %oa = tp.all_to_all %o on @tp axes = [0] split = 0 concat = 1 : {e} -> {p}
  %y = tp.matmul %oa, %wo : {p}, {wo} -> {y}
  return %y : {y}
}}
"""
    shapes = [[sl, dm], [dm, heads * d], [dm, heads * d], [dm, heads * d], [heads * d, dm]]
    replicated = [False, True, True, True, True]

    def reference(ins):
        xs = np.concatenate([i[0] for i in ins])
        wq, wk, wv, wo_ = ins[0][1:]
        q, k, v = (xs @ m for m in (wq, wk, wv))
        out = np.zeros_like(q)
        for h in range(heads):
            cols = slice(h * d, (h + 1) * d)
            sc_ = q[:, cols] @ k[:, cols].T / np.sqrt(d)
            pr = np.exp(sc_ - sc_.max(-1, keepdims=True))
            pr /= pr.sum(-1, keepdims=True)
            out[:, cols] = pr @ v[:, cols]
        y_ = out @ wo_
        return [[y_[r * sl:(r + 1) * sl]] for r in range(g)]
    return text, shapes, replicated, reference


def moe(g, dt):
    experts, cap, dm, ff = 2 * g, 2, 16, 32  # experts, capacity per rank and expert
    el, tl = 2, experts * cap  # experts per rank, tokens per rank
    x, perm = t([tl, dm], dt), t([tl, tl], dt)
    w1, w2 = t([el, dm, ff], dt), t([el, ff, dm], dt)
    disp, d3, e3 = t([tl, dm], dt), t([experts, cap, dm], dt), t([el, cap * g, dm], dt)
    h3, o3, y = t([el, cap * g, ff], dt), t([el, cap * g, dm], dt), t([tl, dm], dt)
    text = f"""func.func @main(%x: {x}, %p: {perm}, %pt: {perm}, %w1: {w1}, %w2: {w2}) -> {y} {{
  %disp = tp.matmul %p, %x : {perm}, {x} -> {disp}
  %d3 = tensor.expand_shape %disp [[0, 1], [2]] output_shape [{experts}, {cap}, {dm}] : {disp} into {d3}
  %tokens = tp.all_to_all %d3 on @tp axes = [0] split = 0 concat = 1 : {d3} -> {e3}
  %h = tp.batch_matmul %tokens, %w1 : {e3}, {w1} -> {h3}
  %zero = arith.constant dense<0.0> : {h3}
  %relu = arith.maximumf %h, %zero : {h3}
  %o = tp.batch_matmul %relu, %w2 : {h3}, {w2} -> {o3}
  %back = tp.all_to_all %o on @tp axes = [0] split = 1 concat = 0 : {o3} -> {d3}
  %b2 = tensor.collapse_shape %back [[0, 1], [2]] : {d3} into {disp}
  %y = tp.matmul %pt, %b2 : {perm}, {disp} -> {y}
  return %y : {y}
}}
"""
    shapes = [[tl, dm], [tl, tl], [tl, tl], [el, dm, ff], [el, ff, dm]]
    replicated = [False] * 5

    def make_inputs(rng, r):
        # Top-1 routing: token order -> slots grouped by expert (a permutation).
        order = rng.permutation(tl)
        pmat = np.zeros((tl, tl), np.float32)
        pmat[np.arange(tl), order] = 1.0
        return {1: pmat, 2: pmat.T.copy()}

    def reference(ins):
        w1s = np.concatenate([i[3] for i in ins])
        w2s = np.concatenate([i[4] for i in ins])
        results = []
        for i in ins:
            xs, pmat = i[0], i[1]
            slots = pmat @ xs  # slot s holds token order[s]; expert s // cap
            out = np.zeros_like(slots)
            for s_ in range(tl):
                e_ = s_ // cap
                out[s_] = np.maximum(slots[s_] @ w1s[e_], 0) @ w2s[e_]
            results.append([pmat.T @ out])
        return results
    return text, shapes, replicated, reference, make_inputs


PROGRAMS = {"ulysses": ulysses, "moe": moe}
# The fused ops each program must become: Ulysses' three projections fuse
# with their sequence -> heads exchanges (producer side) and the heads ->
# sequence exchange with the output projection; the MoE dispatch fuses with
# the experts' first GEMM and the combine with their second.
FUSED = {"ulysses": {"all_to_all_matmul": 1, "matmul_all_to_all": 3},
         "moe": {"all_to_all_matmul": 1, "matmul_all_to_all": 1}}


def check(name, g, dt, args, tmp):
    built = PROGRAMS[name](g, dt)
    text, shapes, replicated, reference = built[:4]
    make_inputs = built[4] if len(built) > 4 else None

    expected = FUSED[name]

    def every_exchange_fused(output):
        counts = {op: len(re.findall(rf"tp\.{op} ", output)) for op in expected}
        return "" if counts == expected else f"expected {expected} fused, got {counts}"
    ok, detail = check_against_numpy(args, tmp, f"{name}_{g}_{dt}", g, dt, text, PIPELINE,
                                     every_exchange_fused, shapes, replicated, reference,
                                     TOLERANCE[dt], 100 * g + len(name), make_inputs)
    fused = ", ".join(f"{n} {op}" for op, n in expected.items())
    return ok, f"{fused}; {detail}" if ok else detail


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("programs", nargs="+", choices=sorted(PROGRAMS))
    parser.add_argument("--tp-opt", required=True)
    parser.add_argument("--tp-run", required=True)
    parser.add_argument("--ranks", type=int, nargs="+", default=[2, 4, 8])
    parser.add_argument("--dtypes", nargs="+", default=["f32", "bf16"])
    add_transport(parser)
    args = parser.parse_args()
    run_matrix(args.programs, args.ranks, args.dtypes,
               lambda name, g, dt, tmp: check(name, g, dt, args, tmp))


if __name__ == "__main__":
    main()
