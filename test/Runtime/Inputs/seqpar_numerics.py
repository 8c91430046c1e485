#!/usr/bin/env python3
"""Automatic sequence parallelism, compiled: fused vs unfused, and vs numpy.

Each program is a per-rank piece of a tensor-parallel transformer layer
WITHOUT sequence parallelism, as a framework writes it: row-parallel matmuls
end in an all-reduce, and the residual stream and norm weights are
replicated (arguments marked tp.replicated, which every rank receives
equal). The pipeline with `sequence-parallel` must split each all-reduce,
move the glue after it onto this rank's rows and fuse the expected number of
collectives; tp-run then runs it against the program as written
(--compare-pipeline '') on the same inputs, and the results are compared
with numpy computing the layer from those inputs.

    seqpar_numerics.py --tp-opt BIN --tp-run BIN PROGRAM... [--ranks 2 4 8]
                       [--dtypes f32 bf16]
                       [--transport mpi]

Prints one line per run and "passed N of N"; exits 1 on any failure.
"""
import argparse
import re

import numpy as np

from glue_numerics import F, H, Program, matmul, np_rmsnorm, t
from numerics_common import add_transport, check_against_numpy, run_matrix

T = 16  # rows (tokens); every group size below divides it
PIPELINE = "tp-async-tp-pipeline{sequence-parallel}"
REPLICATED = " {tp.replicated}"


def all_reduce(p, x, rows, cols):
    return p.emit(f"tp.all_reduce {x} on @tp axes = [0] reduce = sum : {t([rows, cols], p.dt)}",
                  [rows, cols])[0]


def add(p, a, b, rows, cols):
    return p.emit(f"arith.addf {a}, {b} : {t([rows, cols], p.dt)}", [rows, cols])[0]


def silu(p, x, rows, cols):
    xf = p.convert(x, [rows, cols], p.dt, "f32")
    neg, _ = p.emit(f"arith.negf {xf} : {t([rows, cols], 'f32')}", [rows, cols], "f32")
    ex, _ = p.emit(f"math.exp {neg} : {t([rows, cols], 'f32')}", [rows, cols], "f32")
    one, _ = p.emit(f"arith.constant dense<1.0> : {t([rows, cols], 'f32')}", [rows, cols], "f32")
    den, _ = p.emit(f"arith.addf {ex}, {one} : {t([rows, cols], 'f32')}", [rows, cols], "f32")
    s, _ = p.emit(f"arith.divf {xf}, {den} : {t([rows, cols], 'f32')}", [rows, cols], "f32")
    return p.convert(s, [rows, cols], "f32", p.dt)


def np_silu(x):
    return x / (1 + np.exp(-x))


# Programs: (text, [(shape, replicated)], numpy reference over all ranks'
# inputs, fused ops expected after the pipeline)

def residual_norm(g, dt):
    """Row-parallel projection -> all-reduce -> + residual -> RMSNorm ->
    column-parallel projection; the residual stream is returned too."""
    p = Program(dt, g)
    Fl = F // g
    y = all_reduce(p, matmul(p, "%in_h", "%in_wo", T, Fl, H), T, H)
    r = add(p, y, "%in_x", T, H)
    n = p.rmsnorm(r, "%in_wn", T)
    z = matmul(p, n, "%in_w1", T, H, Fl)
    args = [("%in_x", [T, H], True), ("%in_wn", [H], True), ("%in_h", [T, Fl], False),
            ("%in_wo", [Fl, H], False), ("%in_w1", [H, Fl], False)]

    def ref(ins):
        r = sum(i[2] @ i[3] for i in ins) + ins[0][0]
        n = np_rmsnorm(r, ins[0][1])
        return [[n @ i[4], r] for i in ins]
    return p, args, [(z, [T, Fl]), (r, [T, H])], ref, 2


def mlp(g, dt):
    """A Megatron MLP without sequence parallelism: RMSNorm on the replicated
    input, SiLU-gated column-parallel projections, row-parallel down
    projection -> all-reduce -> + residual."""
    p = Program(dt, g)
    Fl = F // g
    n = p.rmsnorm("%in_x", "%in_wn", T)
    gate = matmul(p, n, "%in_wg", T, H, Fl)
    up = matmul(p, n, "%in_wu", T, H, Fl)
    h, _ = p.emit(f"arith.mulf {silu(p, gate, T, Fl)}, {up} : {t([T, Fl], dt)}", [T, Fl])
    y = all_reduce(p, matmul(p, h, "%in_wd", T, Fl, H), T, H)
    out = add(p, y, "%in_x", T, H)
    args = [("%in_x", [T, H], True), ("%in_wn", [H], True), ("%in_wg", [H, Fl], False),
            ("%in_wu", [H, Fl], False), ("%in_wd", [Fl, H], False)]

    def ref(ins):
        n = np_rmsnorm(ins[0][0], ins[0][1])
        total = sum((np_silu(n @ i[2]) * (n @ i[3])) @ i[4] for i in ins)
        return [[total + ins[0][0]] for _ in ins]
    return p, args, [(out, [T, H])], ref, 1


def two_layers(g, dt):
    """Two row-parallel layers of one block: out-projection -> all-reduce ->
    + x = r; RMSNorm(r) -> up (column-parallel) -> SiLU -> down (row-parallel)
    -> all-reduce -> + r. Only the block's output needs the whole rows."""
    p = Program(dt, g)
    Fl = F // g
    y1 = all_reduce(p, matmul(p, "%in_h", "%in_wo", T, Fl, H), T, H)
    r = add(p, y1, "%in_x", T, H)
    n = p.rmsnorm(r, "%in_wn", T)
    u = silu(p, matmul(p, n, "%in_w1", T, H, Fl), T, Fl)
    y2 = all_reduce(p, matmul(p, u, "%in_w2", T, Fl, H), T, H)
    out = add(p, r, y2, T, H)
    args = [("%in_x", [T, H], True), ("%in_wn", [H], True), ("%in_h", [T, Fl], False),
            ("%in_wo", [Fl, H], False), ("%in_w1", [H, Fl], False), ("%in_w2", [Fl, H], False)]

    def ref(ins):
        r = sum(i[2] @ i[3] for i in ins) + ins[0][0]
        n = np_rmsnorm(r, ins[0][1])
        total = sum(np_silu(n @ i[4]) @ i[5] for i in ins)
        return [[r + total] for _ in ins]
    return p, args, [(out, [T, H])], ref, 3


PROGRAMS = {f.__name__: f for f in [residual_norm, mlp, two_layers]}
# bf16 rounds every stored intermediate (norm outputs, products) to 8 bits.
TOLERANCE = {"f32": 1e-4, "bf16": 3e-2}


def check(name, g, dt, args, tmp):
    p, arguments, results, ref, fused_ops = PROGRAMS[name](g, dt)
    text = p.function([(n, t(shape, dt) + (REPLICATED if rep else "")) for n, shape, rep in arguments],
                      [(v, t(shape, dt)) for v, shape in results])

    def fused_without_all_reduce(output):
        count = len(re.findall(r"tp\.(all_gather_matmul|matmul_reduce_scatter)", output))
        if count != fused_ops or "tp.all_reduce" in output:
            return f"expected {fused_ops} fused ops and no all-reduce"
        return ""
    ok, detail = check_against_numpy(args, tmp, f"{name}_{g}_{dt}", g, dt, text, PIPELINE,
                                     fused_without_all_reduce,
                                     [shape for _, shape, _ in arguments],
                                     [rep for _, _, rep in arguments], ref, TOLERANCE[dt],
                                     1000 * g + len(name))
    return ok, f"{fused_ops} fused; {detail}" if ok else detail


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
