#!/usr/bin/env python3
"""Transformer glue, compiled: fused vs unfused, and both against numpy.

Each program is a per-rank piece of a sequence-parallel transformer layer:
norms (reduction linalg.generic and linalg.reduce), softmax, head reshapes
and linalg.transpose, tensor.concat / tensor.insert, a whole attention block
and an MLP block. For each program, group size and element type this writes
the per-rank IR and seeded per-rank inputs (.npy), checks that the async-TP
pipeline fuses its collectives, runs it with tp-run fused and compares with
the unfused run (--compare-pipeline), and compares the fused results with a
reference numpy computes from the same inputs and the layer's math (not from
the IR).

    glue_numerics.py --tp-opt BIN --tp-run BIN PROGRAM... [--ranks 1 2 4 8]
                     [--dtypes f32 bf16]
                     [--transport mpi]
    glue_numerics.py --emit PROGRAM --ranks G --dtypes DT [--sizes S,H,F,NH,HD]

Prints one line per run and a final "passed N of N" line; exits 1 on any
failure. Needs numpy.
"""
import argparse
import os
import re

import numpy as np

from numerics_common import (add_transport, compare, run, run_matrix, to_bf16,
                             transport_args, worst_error)

S, H, F, NH, HD = 4, 32, 64, 8, 4  # local rows, hidden, ffn, heads, head dim
EPS = 1e-5
# Body of a rowwise() generic: x / sqrt(r / H + eps), r a row's sum of
# squares (RMSNorm) or of squared deviations (LayerNorm).
INVERSE_RMS = f"""    %h = arith.constant {float(H)} : f32
    %e = arith.constant {EPS:e} : f32
    %m = arith.divf %r, %h : f32
    %v = arith.addf %m, %e : f32
    %s = math.rsqrt %v : f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32"""


def t(shape, dt):
    return "tensor<" + "".join(f"{d}x" for d in shape) + f"{dt}>"


class Program:
    """Emits the body of one per-rank function, line by line, naming values."""

    def __init__(self, dt, g):
        self.dt = dt
        self.g = g
        self.lines = []
        self.count = 0

    def emit(self, text, shape, dt=None):
        name = f"%v{self.count}"
        self.count += 1
        self.lines.append(f"  {name} = {text}")
        return name, t(shape, dt or self.dt)

    def maps(self, rank, outs):
        dims = ", ".join(f"d{i}" for i in range(rank))
        return ", ".join(f"affine_map<({dims}) -> ({o})>" for o in outs)

    def convert(self, value, shape, src, dst):
        """Element type conversion (none when equal), as a linalg.generic."""
        if src == dst:
            return value
        op = "arith.extf" if src != "f32" else "arith.truncf"
        ident = ", ".join(f"d{i}" for i in range(len(shape)))
        parallel = ", ".join(['"parallel"'] * len(shape))
        empty, _ = self.emit(f"tensor.empty() : {t(shape, dst)}", shape, dst)
        return self.emit(
            f"linalg.generic {{indexing_maps = [{self.maps(len(shape), [ident, ident])}], "
            f"iterator_types = [{parallel}]}} "
            f"ins({value} : {t(shape, src)}) outs({empty} : {t(shape, dst)}) {{\n"
            f"  ^bb0(%a: {src}, %b: {dst}):\n    %c = {op} %a : {src} to {dst}\n"
            f"    linalg.yield %c : {dst}\n  }} -> {t(shape, dst)}", shape, dst)[0]

    def zeros(self, shape, dt="f32", value="0.0"):
        empty, _ = self.emit(f"tensor.empty() : {t(shape, dt)}", shape, dt)
        cst, _ = self.emit(f"arith.constant {value} : {dt}", [], dt)
        return self.emit(f"linalg.fill ins({cst} : {dt}) outs({empty} : {t(shape, dt)}) "
                         f"-> {t(shape, dt)}", shape, dt)[0]

    def row_sum(self, value, rows, cols, reduce="linalg.reduce"):
        """Sum along the last dim in f32: linalg.reduce, or a reduction
        linalg.generic."""
        acc = self.zeros([rows])
        if reduce == "linalg.reduce":
            return self.emit(
                f"linalg.reduce ins({value} : {t([rows, cols], 'f32')}) "
                f"outs({acc} : {t([rows], 'f32')}) dimensions = [1]\n"
                f"    (%a: f32, %b: f32) {{\n      %c = arith.addf %a, %b : f32\n"
                f"      linalg.yield %c : f32\n    }}", [rows], "f32")[0]
        return self.emit(
            f"linalg.generic {{indexing_maps = [{self.maps(2, ['d0, d1', 'd0'])}], "
            f"iterator_types = [\"parallel\", \"reduction\"]}} "
            f"ins({value} : {t([rows, cols], 'f32')}) outs({acc} : {t([rows], 'f32')}) {{\n"
            f"  ^bb0(%a: f32, %b: f32):\n    %c = arith.addf %a, %b : f32\n"
            f"    linalg.yield %c : f32\n  }} -> {t([rows], 'f32')}", [rows], "f32")[0]

    def row_max(self, value, rows, cols):
        acc = self.zeros([rows], value="0xFF800000")
        return self.emit(
            f"linalg.reduce ins({value} : {t([rows, cols], 'f32')}) "
            f"outs({acc} : {t([rows], 'f32')}) dimensions = [1]\n"
            f"    (%a: f32, %b: f32) {{\n      %c = arith.maximumf %a, %b : f32\n"
            f"      linalg.yield %c : f32\n    }}", [rows], "f32")[0]

    def rowwise(self, x, row, rows, cols, body, dt_out="f32"):
        """out[i, j] = body(x[i, j], row[i]) in f32."""
        empty, _ = self.emit(f"tensor.empty() : {t([rows, cols], dt_out)}", [rows, cols], dt_out)
        return self.emit(
            f"linalg.generic {{indexing_maps = [{self.maps(2, ['d0, d1', 'd0', 'd0, d1'])}], "
            f"iterator_types = [\"parallel\", \"parallel\"]}} "
            f"ins({x}, {row} : {t([rows, cols], 'f32')}, {t([rows], 'f32')}) "
            f"outs({empty} : {t([rows, cols], dt_out)}) {{\n"
            f"  ^bb0(%x: f32, %r: f32, %o: {dt_out}):\n{body}\n  }} -> {t([rows, cols], dt_out)}",
            [rows, cols], dt_out)[0]

    # Norms: x [rows, H] in the program's type -> normalized, same type.
    def rmsnorm(self, x, w, rows):
        xf = self.convert(x, [rows, H], self.dt, "f32")
        sq, _ = self.emit(f"arith.mulf {xf}, {xf} : {t([rows, H], 'f32')}", [rows, H], "f32")
        ss = self.row_sum(sq, rows, H, "linalg.reduce")
        inv = self.rowwise(xf, ss, rows, H, INVERSE_RMS)
        wf = self.convert(w, [H], self.dt, "f32")
        empty, _ = self.emit(f"tensor.empty() : {t([rows, H], 'f32')}", [rows, H], "f32")
        scaled, _ = self.emit(
            f"linalg.generic {{indexing_maps = [{self.maps(2, ['d0, d1', 'd1', 'd0, d1'])}], "
            f"iterator_types = [\"parallel\", \"parallel\"]}} "
            f"ins({inv}, {wf} : {t([rows, H], 'f32')}, {t([H], 'f32')}) "
            f"outs({empty} : {t([rows, H], 'f32')}) {{\n"
            f"  ^bb0(%a: f32, %b: f32, %o: f32):\n    %c = arith.mulf %a, %b : f32\n"
            f"    linalg.yield %c : f32\n  }} -> {t([rows, H], 'f32')}", [rows, H], "f32")
        return self.convert(scaled, [rows, H], "f32", self.dt)

    def layernorm(self, x, gamma, beta, rows):
        xf = self.convert(x, [rows, H], self.dt, "f32")
        total = self.row_sum(xf, rows, H, "generic")
        centered = self.rowwise(xf, total, rows, H, f"""    %h = arith.constant {float(H)} : f32
    %m = arith.divf %r, %h : f32
    %y = arith.subf %x, %m : f32
    linalg.yield %y : f32""")
        sq, _ = self.emit(f"arith.mulf {centered}, {centered} : {t([rows, H], 'f32')}",
                          [rows, H], "f32")
        var = self.row_sum(sq, rows, H, "generic")
        normed = self.rowwise(centered, var, rows, H, INVERSE_RMS)
        g = self.convert(gamma, [H], self.dt, "f32")
        b = self.convert(beta, [H], self.dt, "f32")
        empty, _ = self.emit(f"tensor.empty() : {t([rows, H], 'f32')}", [rows, H], "f32")
        out, _ = self.emit(
            f"linalg.generic {{indexing_maps = [{self.maps(2, ['d0, d1', 'd1', 'd1', 'd0, d1'])}], "
            f"iterator_types = [\"parallel\", \"parallel\"]}} "
            f"ins({normed}, {g}, {b} : {t([rows, H], 'f32')}, {t([H], 'f32')}, {t([H], 'f32')}) "
            f"outs({empty} : {t([rows, H], 'f32')}) {{\n"
            f"  ^bb0(%a: f32, %gg: f32, %bb: f32, %o: f32):\n    %c = arith.mulf %a, %gg : f32\n"
            f"    %d = arith.addf %c, %bb : f32\n    linalg.yield %d : f32\n  }} -> {t([rows, H], 'f32')}",
            [rows, H], "f32")
        return self.convert(out, [rows, H], "f32", self.dt)

    def softmax(self, x, rows, cols, scale=1.0):
        """Row-wise softmax(scale * x) in f32; result in the program's type."""
        xf = self.convert(x, [rows, cols], self.dt, "f32")
        if scale != 1.0:
            empty, _ = self.emit(f"tensor.empty() : {t([rows, cols], 'f32')}", [rows, cols], "f32")
            sc, _ = self.emit(f"arith.constant {scale:e} : f32", [], "f32")
            xf, _ = self.emit(
                f"linalg.generic {{indexing_maps = [{self.maps(2, ['d0, d1', 'd0, d1'])}], "
                f"iterator_types = [\"parallel\", \"parallel\"]}} ins({xf} : {t([rows, cols], 'f32')}) "
                f"outs({empty} : {t([rows, cols], 'f32')}) {{\n  ^bb0(%a: f32, %o: f32):\n"
                f"    %c = arith.mulf %a, {sc} : f32\n    linalg.yield %c : f32\n"
                f"  }} -> {t([rows, cols], 'f32')}", [rows, cols], "f32")
        mx = self.row_max(xf, rows, cols)
        ex = self.rowwise(xf, mx, rows, cols, """    %d = arith.subf %x, %r : f32
    %y = math.exp %d : f32
    linalg.yield %y : f32""")
        total = self.row_sum(ex, rows, cols, "linalg.reduce")
        p = self.rowwise(ex, total, rows, cols, """    %y = arith.divf %x, %r : f32
    linalg.yield %y : f32""")
        return self.convert(p, [rows, cols], "f32", self.dt)

    def function(self, args, results):
        sig = ", ".join(f"{n}: {ty}" for n, ty in args)
        res = ", ".join(ty for _, ty in results)
        ret = ", ".join(n for n, _ in results)
        return (f"func.func @main({sig}) -> ({res}) {{\n" + "\n".join(self.lines) +
                f"\n  return {ret} : {res}\n}}\n")


def gather(p, x, rows, cols):
    return p.emit(f"tp.all_gather {x} on @tp axes = [0] dim = 0 : {t([rows, cols], p.dt)} -> "
                  f"{t([rows * p.g, cols], p.dt)}", [rows * p.g, cols])[0]


def matmul(p, a, b, m, k, n):
    return p.emit(f"tp.matmul {a}, {b} : {t([m, k], p.dt)}, {t([k, n], p.dt)} -> {t([m, n], p.dt)}",
                  [m, n])[0]


def scatter(p, y, rows, cols):
    return p.emit(f"tp.reduce_scatter {y} on @tp axes = [0] dim = 0 reduce = sum : "
                  f"{t([rows, cols], p.dt)} -> {t([rows // p.g, cols], p.dt)}",
                  [rows // p.g, cols])[0]


#===------------------------------------------------------------------------===#
# Programs: (mlir text, argument shapes, numpy reference over all ranks' inputs)
#===------------------------------------------------------------------------===#

def np_rmsnorm(x, w):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + EPS) * w


def np_layernorm(x, gamma, beta):
    c = x - x.mean(-1, keepdims=True)
    return c / np.sqrt((c * c).mean(-1, keepdims=True) + EPS) * gamma + beta


def np_softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def layernorm_gather_matmul(g, dt):
    """LayerNorm (reduction linalg.generic) before a column-parallel matmul."""
    p = Program(dt, g)
    Fl = F // g
    n = p.layernorm("%in_x", "%in_gamma", "%in_beta", S)
    y = matmul(p, gather(p, n, S, H), "%in_w", S * g, H, Fl)
    text = p.function([("%in_x", t([S, H], dt)), ("%in_gamma", t([H], dt)), ("%in_beta", t([H], dt)),
                       ("%in_w", t([H, Fl], dt))], [(y, t([S * g, Fl], dt))])

    def ref(ins):
        full = np.concatenate([np_layernorm(i[0], i[1], i[2]) for i in ins])
        return [[full @ i[3]] for i in ins]
    return text, [[S, H], [H], [H], [H, Fl]], ref, 1


def rmsnorm_gather_matmul(g, dt):
    """RMSNorm (linalg.reduce) before a column-parallel matmul."""
    p = Program(dt, g)
    Fl = F // g
    n = p.rmsnorm("%in_x", "%in_wn", S)
    y = matmul(p, gather(p, n, S, H), "%in_w", S * g, H, Fl)
    text = p.function([("%in_x", t([S, H], dt)), ("%in_wn", t([H], dt)), ("%in_w", t([H, Fl], dt))],
                      [(y, t([S * g, Fl], dt))])

    def ref(ins):
        full = np.concatenate([np_rmsnorm(i[0], i[1]) for i in ins])
        return [[full @ i[2]] for i in ins]
    return text, [[S, H], [H], [H, Fl]], ref, 1


def softmax_matmul_scatter(g, dt):
    """Softmax over each rank's columns, then a row-parallel matmul."""
    p = Program(dt, g)
    Fl = F // g
    sm = p.softmax("%in_h", S * g, Fl)
    y = scatter(p, matmul(p, sm, "%in_w", S * g, Fl, H), S * g, H)
    text = p.function([("%in_h", t([S * g, Fl], dt)), ("%in_w", t([Fl, H], dt))], [(y, t([S, H], dt))])

    def ref(ins):
        total = sum(np_softmax(i[0]) @ i[1] for i in ins)
        return [[total[r * S:(r + 1) * S]] for r in range(len(ins))]
    return text, [[S * g, Fl], [Fl, H]], ref, 1


def heads_transpose(g, dt):
    """Q projection split into heads, transposed head-major and back."""
    p = Program(dt, g)
    T, NHl = S * g, NH // g
    D = NHl * HD
    q = matmul(p, gather(p, "%in_x", S, H), "%in_wq", T, H, D)
    q3, _ = p.emit(f"tensor.expand_shape {q} [[0], [1, 2]] output_shape [{T}, {NHl}, {HD}] : "
                   f"{t([T, D], dt)} into {t([T, NHl, HD], dt)}", [T, NHl, HD])
    e, _ = p.emit(f"tensor.empty() : {t([NHl, T, HD], dt)}", [NHl, T, HD])
    qh, _ = p.emit(f"linalg.transpose ins({q3} : {t([T, NHl, HD], dt)}) "
                   f"outs({e} : {t([NHl, T, HD], dt)}) permutation = [1, 0, 2]", [NHl, T, HD])
    e2, _ = p.emit(f"tensor.empty() : {t([T, NHl, HD], dt)}", [T, NHl, HD])
    back, _ = p.emit(f"linalg.transpose ins({qh} : {t([NHl, T, HD], dt)}) "
                     f"outs({e2} : {t([T, NHl, HD], dt)}) permutation = [1, 0, 2]", [T, NHl, HD])
    flat, _ = p.emit(f"tensor.collapse_shape {back} [[0], [1, 2]] : {t([T, NHl, HD], dt)} "
                     f"into {t([T, D], dt)}", [T, D])
    y = scatter(p, matmul(p, flat, "%in_wo", T, D, H), T, H)
    text = p.function([("%in_x", t([S, H], dt)), ("%in_wq", t([H, D], dt)), ("%in_wo", t([D, H], dt))],
                      [(qh, t([NHl, T, HD], dt)), (y, t([S, H], dt))])

    def ref(ins):
        full = np.concatenate([i[0] for i in ins])
        qs = [full @ i[1] for i in ins]
        total = sum(q @ i[2] for q, i in zip(qs, ins))
        return [[qs[r].reshape(T, NHl, HD).transpose(1, 0, 2), total[r * S:(r + 1) * S]]
                for r in range(len(ins))]
    return text, [[S, H], [H, D], [D, H]], ref, 2


def concat_insert(g, dt):
    """Two column-parallel products joined by tensor.concat, one element set
    by tensor.insert and a tile by tensor.insert_slice, then row-parallel."""
    p = Program(dt, g)
    T, Fl = S * g, F // g
    G = gather(p, "%in_x", S, H)
    a = matmul(p, G, "%in_wa", T, H, Fl)
    b = matmul(p, G, "%in_wb", T, H, Fl)
    c, _ = p.emit(f"tensor.concat dim(1) {a}, {b} : ({t([T, Fl], dt)}, {t([T, Fl], dt)}) -> "
                  f"{t([T, 2 * Fl], dt)}", [T, 2 * Fl])
    two, _ = p.emit(f"arith.constant 2.0 : {dt}", [], dt)
    i1, _ = p.emit("arith.constant 1 : index", [], "index")
    ins1, _ = p.emit(f"tensor.insert {two} into {c}[{i1}, {i1}] : {t([T, 2 * Fl], dt)}",
                     [T, 2 * Fl])
    tile, _ = p.emit(f"tensor.extract_slice %in_x[0, 0] [2, 2] [1, 1] : {t([S, H], dt)} to "
                     f"{t([2, 2], dt)}", [2, 2])
    ins2, _ = p.emit(f"tensor.insert_slice {tile} into {ins1}[0, 2] [2, 2] [1, 1] : "
                     f"{t([2, 2], dt)} into {t([T, 2 * Fl], dt)}", [T, 2 * Fl])
    y = scatter(p, matmul(p, ins2, "%in_w2", T, 2 * Fl, H), T, H)
    text = p.function([("%in_x", t([S, H], dt)), ("%in_wa", t([H, Fl], dt)), ("%in_wb", t([H, Fl], dt)),
                       ("%in_w2", t([2 * Fl, H], dt))], [(y, t([S, H], dt))])

    def ref(ins):
        full = np.concatenate([i[0] for i in ins])
        total = 0
        for i in ins:
            c = np.concatenate([full @ i[1], full @ i[2]], axis=1)
            c[1, 1] = 2.0
            c[0:2, 2:4] = i[0][0:2, 0:2]
            total = total + c @ i[3]
        return [[total[r * S:(r + 1) * S]] for r in range(len(ins))]
    return text, [[S, H], [H, Fl], [H, Fl], [2 * Fl, H]], ref, 2


def emit_attention(p, x, w):
    """x + attention(RMSNorm(x)) on one rank's S rows: one all-gather shared
    by Q, K, V, heads, softmax(QK^T / sqrt(d)) V, the row-parallel output
    projection and its reduce-scatter. `w` names the weights (wn, wq, wk,
    wv, wo)."""
    dt, g = p.dt, p.g
    T, NHl = S * g, NH // g
    D = NHl * HD
    G = gather(p, p.rmsnorm(x, w["wn"], S), S, H)

    def heads(wname, perm, shape):
        v = matmul(p, G, w[wname], T, H, D)
        v3, _ = p.emit(f"tensor.expand_shape {v} [[0], [1, 2]] output_shape [{T}, {NHl}, {HD}] : "
                       f"{t([T, D], dt)} into {t([T, NHl, HD], dt)}", [T, NHl, HD])
        e, _ = p.emit(f"tensor.empty() : {t(shape, dt)}", shape)
        return p.emit(f"linalg.transpose ins({v3} : {t([T, NHl, HD], dt)}) outs({e} : "
                      f"{t(shape, dt)}) permutation = {perm}", shape)[0]
    q = heads("wq", "[1, 0, 2]", [NHl, T, HD])
    kt = heads("wk", "[1, 2, 0]", [NHl, HD, T])
    v = heads("wv", "[1, 0, 2]", [NHl, T, HD])
    s, _ = p.emit(f"tp.batch_matmul {q}, {kt} : {t([NHl, T, HD], dt)}, {t([NHl, HD, T], dt)} -> "
                  f"{t([NHl, T, T], dt)}", [NHl, T, T])
    s2, _ = p.emit(f"tensor.collapse_shape {s} [[0, 1], [2]] : {t([NHl, T, T], dt)} into "
                   f"{t([NHl * T, T], dt)}", [NHl * T, T])
    pr = p.softmax(s2, NHl * T, T, scale=1.0 / np.sqrt(HD))
    pr3, _ = p.emit(f"tensor.expand_shape {pr} [[0, 1], [2]] output_shape [{NHl}, {T}, {T}] : "
                    f"{t([NHl * T, T], dt)} into {t([NHl, T, T], dt)}", [NHl, T, T])
    o, _ = p.emit(f"tp.batch_matmul {pr3}, {v} : {t([NHl, T, T], dt)}, {t([NHl, T, HD], dt)} -> "
                  f"{t([NHl, T, HD], dt)}", [NHl, T, HD])
    e, _ = p.emit(f"tensor.empty() : {t([T, NHl, HD], dt)}", [T, NHl, HD])
    ot, _ = p.emit(f"linalg.transpose ins({o} : {t([NHl, T, HD], dt)}) outs({e} : "
                   f"{t([T, NHl, HD], dt)}) permutation = [1, 0, 2]", [T, NHl, HD])
    o2, _ = p.emit(f"tensor.collapse_shape {ot} [[0], [1, 2]] : {t([T, NHl, HD], dt)} into "
                   f"{t([T, D], dt)}", [T, D])
    y = scatter(p, matmul(p, o2, w["wo"], T, D, H), T, H)
    return p.emit(f"arith.addf {y}, {x} : {t([S, H], dt)}", [S, H])[0]


def attention_weights(dt, g):
    D = NH // g * HD
    return [("wn", [H]), ("wq", [H, D]), ("wk", [H, D]), ("wv", [H, D]), ("wo", [D, H])]


def np_attention(xs, ws):
    """Every rank's output of emit_attention, from every rank's x and
    weights (dicts)."""
    g = len(xs)
    T, NHl = S * g, NH // g
    D = NHl * HD
    full = np.concatenate([np_rmsnorm(x, w["wn"]) for x, w in zip(xs, ws)])
    total = 0
    for w in ws:
        q, k, v = (full @ w[n] for n in ("wq", "wk", "wv"))
        split = lambda m: m.reshape(T, NHl, HD).transpose(1, 0, 2)
        pr = np_softmax(split(q) @ split(k).transpose(0, 2, 1) / np.sqrt(HD))
        o = (pr @ split(v)).transpose(1, 0, 2).reshape(T, D)
        total = total + o @ w["wo"]
    return [total[r * S:(r + 1) * S] + xs[r] for r in range(g)]


def emit_mlp(p, x, w):
    """x + W_d(SiLU(RMSNorm(x) W_g) * RMSNorm(x) W_u) on one rank's S rows,
    the norm's output gathered, the down projection reduce-scattered. `w`
    names the weights (wn, wg, wu, wd)."""
    dt, g = p.dt, p.g
    T, Fl = S * g, F // g
    G = gather(p, p.rmsnorm(x, w["wn"], S), S, H)
    gate = matmul(p, G, w["wg"], T, H, Fl)
    up = matmul(p, G, w["wu"], T, H, Fl)
    gf = p.convert(gate, [T, Fl], dt, "f32")
    neg, _ = p.emit(f"arith.negf {gf} : {t([T, Fl], 'f32')}", [T, Fl], "f32")
    ex, _ = p.emit(f"math.exp {neg} : {t([T, Fl], 'f32')}", [T, Fl], "f32")
    one, _ = p.emit(f"arith.constant dense<1.0> : {t([T, Fl], 'f32')}", [T, Fl], "f32")
    den, _ = p.emit(f"arith.addf {ex}, {one} : {t([T, Fl], 'f32')}", [T, Fl], "f32")
    silu, _ = p.emit(f"arith.divf {gf}, {den} : {t([T, Fl], 'f32')}", [T, Fl], "f32")
    h, _ = p.emit(f"arith.mulf {p.convert(silu, [T, Fl], 'f32', dt)}, {up} : {t([T, Fl], dt)}",
                  [T, Fl])
    y = scatter(p, matmul(p, h, w["wd"], T, Fl, H), T, H)
    return p.emit(f"arith.addf {y}, {x} : {t([S, H], dt)}", [S, H])[0]


def mlp_weights(dt, g):
    Fl = F // g
    return [("wn", [H]), ("wg", [H, Fl]), ("wu", [H, Fl]), ("wd", [Fl, H])]


def np_mlp(xs, ws):
    g = len(xs)
    full = np.concatenate([np_rmsnorm(x, w["wn"]) for x, w in zip(xs, ws)])
    total = 0
    for w in ws:
        gate = full @ w["wg"]
        total = total + (gate / (1 + np.exp(-gate)) * (full @ w["wu"])) @ w["wd"]
    return [total[r * S:(r + 1) * S] + xs[r] for r in range(g)]


def block_program(g, dt, parts):
    """x through `parts` ((name, emitter, weights, numpy reference) in
    order), each with its own weights (%in_<name>_<weight>)."""
    p = Program(dt, g)
    args, shapes, x = [("%in_x", t([S, H], dt))], [[S, H]], "%in_x"
    for name, emit, weights, _ in parts:
        names = {}
        for wname, shape in weights(dt, g):
            names[wname] = f"%in_{name}_{wname}"
            args.append((names[wname], t(shape, dt)))
            shapes.append(shape)
        x = emit(p, x, names)
    text = p.function(args, [(x, t([S, H], dt))])

    def ref(ins):
        xs = [i[0] for i in ins]
        at = 1
        for name, _, weights, np_ref in parts:
            keys = [wname for wname, _ in weights(dt, g)]
            ws = [dict(zip(keys, i[at:at + len(keys)])) for i in ins]
            xs = np_ref(xs, ws)
            at += len(keys)
        return [[x] for x in xs]
    return text, shapes, ref, 2 * len(parts)


ATTENTION = ("attn", emit_attention, attention_weights, np_attention)
MLP = ("mlp", emit_mlp, mlp_weights, np_mlp)


def attention_block(g, dt):
    """x -> RMSNorm -> one all-gather shared by Q, K, V -> heads -> softmax(QK^T
    / sqrt(d)) V -> row-parallel output projection -> reduce-scatter ->
    + residual."""
    return block_program(g, dt, [ATTENTION])


def mlp_block(g, dt):
    """x -> RMSNorm -> all-gather -> SiLU(x Wg) * (x Wu) -> Wd -> reduce-scatter
    -> + residual."""
    return block_program(g, dt, [MLP])


def transformer_block(g, dt):
    """An attention block, then an MLP block on its output: a whole
    sequence-parallel transformer layer."""
    return block_program(g, dt, [ATTENTION, MLP])


PROGRAMS = {f.__name__: f for f in [
    layernorm_gather_matmul, rmsnorm_gather_matmul, softmax_matmul_scatter, heads_transpose,
    concat_insert, attention_block, mlp_block, transformer_block]}

# Largest |fused - numpy| / max |numpy| accepted: bf16 rounds every stored
# intermediate (norm outputs, products, probabilities) to 8 bits.
TOLERANCE = {"f32": 1e-4, "bf16": 3e-2}


def check(name, g, dt, args, tmp):
    text, shapes, ref, fused_ops = PROGRAMS[name](g, dt)
    path = os.path.join(tmp, f"{name}_{g}_{dt}.mlir")
    with open(path, "w") as f:
        f.write(f"shard.grid @tp(shape = {g})\n" + text)
    # The pipeline fuses every collective (they fold away on one rank).
    fused = run([args.tp_opt, path, "--tp-async-tp-pipeline"])
    count = len(re.findall(r"tp\.(all_gather_matmul|matmul_reduce_scatter)", fused.stdout))
    if fused.returncode != 0 or (g > 1 and count != fused_ops):
        return False, f"expected {fused_ops} fused ops, found {count}\n{fused.stdout}"
    rng = np.random.default_rng(1000 * g + len(name))
    inputs = os.path.join(tmp, f"in_{name}_{g}_{dt}")
    dumps = os.path.join(tmp, f"out_{name}_{g}_{dt}")
    ins = []
    for r in range(g):
        os.makedirs(os.path.join(inputs, f"rank{r}"))
        values = [rng.uniform(-1, 1, shape).astype(np.float32) for shape in shapes]
        if dt == "bf16":
            values = [to_bf16(v) for v in values]
        for i, v in enumerate(values):
            np.save(os.path.join(inputs, f"rank{r}", f"arg{i}.npy"), v)
        ins.append([v.astype(np.float64) for v in values])
    ok, error, output = compare([args.tp_run, path, "--ranks", str(g), "--input-dir", inputs,
                                 "--dump-dir", dumps, "--pipeline", "tp-async-tp-pipeline",
                                 "--compare-pipeline", ""] + transport_args(args))
    if not ok:
        return False, output
    worst, mismatch = worst_error(dumps, ref(ins))
    if mismatch:
        return False, mismatch
    if worst > TOLERANCE[dt]:
        return False, f"against numpy: normalized error {worst:.2e} > {TOLERANCE[dt]:.0e}"
    return True, f"fused vs unfused {error}, vs numpy {worst:.2e}"


def set_sizes(sizes):
    """Replaces the sizes every program uses (S,H,F,NH,HD), for --emit."""
    global S, H, F, NH, HD, INVERSE_RMS
    old_h = H
    S, H, F, NH, HD = sizes
    INVERSE_RMS = INVERSE_RMS.replace(f"arith.constant {float(old_h)} : f32",
                                      f"arith.constant {float(H)} : f32")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("programs", nargs="*", help=", ".join(sorted(PROGRAMS)))
    parser.add_argument("--tp-opt")
    parser.add_argument("--tp-run")
    parser.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--dtypes", nargs="+", default=["f32", "bf16"])
    parser.add_argument("--emit", choices=sorted(PROGRAMS),
                        help="print this program for the first --ranks and --dtypes, and stop")
    parser.add_argument("--sizes", default=None,
                        help="with --emit: S,H,F,NH,HD (rows per rank, hidden, ffn, heads, head dim)")
    add_transport(parser)
    args = parser.parse_args()
    if args.emit:
        if args.sizes:
            sizes = [int(v) for v in args.sizes.split(",")]
            g = args.ranks[0]
            if len(sizes) != 5 or min(sizes) < 1 or sizes[2] % g or sizes[3] % g:
                parser.error("--sizes takes S,H,F,NH,HD, all positive, F and NH divisible by --ranks")
            set_sizes(sizes)
        text = PROGRAMS[args.emit](args.ranks[0], args.dtypes[0])[0]
        print(f"shard.grid @tp(shape = {args.ranks[0]})\n" + text, end="")
        return
    if not args.programs or not args.tp_opt or not args.tp_run:
        parser.error("give PROGRAM... with --tp-opt and --tp-run, or --emit PROGRAM")
    unknown = [name for name in args.programs if name not in PROGRAMS]
    if unknown:
        parser.error(f"unknown programs {unknown}: choose from {', '.join(sorted(PROGRAMS))}")
    run_matrix(args.programs, args.ranks, args.dtypes,
               lambda name, g, dt, tmp: check(name, g, dt, args, tmp))


if __name__ == "__main__":
    main()
