#!/usr/bin/env python3
"""Sequence-parallel forward + backward, compiled: fused vs unfused, and vs numpy.

Each program is one rank's forward and backward pass of a sequence-parallel
layer, written the way autograd emits them: plain tp.all_gather,
tp.reduce_scatter, tp.matmul and linalg.transpose with elementwise glue, no
fused op. The weight gradients contract a gathered value over the gathered
(sequence) dim, dW = dY^T . X, the form tp.all_gather_contract fuses; the
data gradients are the forward's matmuls transposed. One function returns
the forward output and every gradient, or only the gradients for the
*_backward programs (a backward compiled apart from its forward). Where the
forward gathers the same value, the pipeline's CSE merges the backward's
gather into it and the weight gradients read the gathered value the forward's
tp.all_gather_matmul returns; only a backward of its own keeps a gather whose
sole uses are weight gradients, and that one becomes tp.all_gather_contract.

    backward_numerics.py --tp-opt BIN --tp-run BIN PROGRAM... [--ranks 2 4 8]
                         [--dtypes f32 bf16]
                         [--transport mpi]

For each program, group size and element type this writes the per-rank IR
and seeded per-rank inputs, reads the pipeline's fusion counts (its `stats`
remark, and the remark of every collective left unfused), runs the program
with tp-run fused against the program as given (--compare-pipeline ''), and
compares the fused results with numpy computing the unsharded layer and its
gradients from all ranks' inputs, then slicing each rank's share.

Prints one line per run and "passed N of N"; exits 1 on any failure.
"""
import argparse
import os
import re

import numpy as np

from glue_numerics import Program, t
from numerics_common import (add_transport, compare, run, run_matrix, to_bf16,
                             transport_args, worst_error)

S, B, H, F = 16, 2, 32, 64  # sequence, batch, hidden, ffn (and attention) width
PIPELINE = "tp-async-tp-pipeline"
# Activation layouts: [s, cols], [b, s, cols] and [s, b, cols], sharded
# along s.
LAYOUTS = {"2d": ("s",), "batch_first": ("b", "s"), "seq_first": ("s", "b")}
# bf16 rounds every stored intermediate (h, activations, gradients) to 8 bits.
TOLERANCE = {"f32": 1e-5, "bf16": 2e-2}

# Bodies of pointwise() generics, in f32 on the inputs %a0, %a1, ...
SILU = ["%n = arith.negf %a0 : f32", "%e = math.exp %n : f32",
        "%one = arith.constant 1.0 : f32", "%d = arith.addf %e, %one : f32",
        "%r = arith.divf %a0, %d : f32"]
# da * silu'(h), with s = sigmoid(h): silu'(h) = s * (1 + h * (1 - s)).
SILU_GRAD = ["%n = arith.negf %a0 : f32", "%e = math.exp %n : f32",
             "%one = arith.constant 1.0 : f32", "%d = arith.addf %e, %one : f32",
             "%s = arith.divf %one, %d : f32", "%c = arith.subf %one, %s : f32",
             "%hc = arith.mulf %a0, %c : f32", "%k = arith.addf %one, %hc : f32",
             "%ds = arith.mulf %s, %k : f32", "%r = arith.mulf %a1, %ds : f32"]
MUL = ["%r = arith.mulf %a0, %a1 : f32"]
MUL_ADD = ["%m = arith.mulf %a0, %a1 : f32", "%r = arith.addf %m, %a2 : f32"]


def pointwise(p, ins, shape, body):
    """A linalg.generic computing `body` on each element of `ins`, in f32."""
    dt, ty, n = p.dt, t(shape, p.dt), len(shape)
    narrow = dt != "f32"
    lines = [f"%a{i} = arith.extf %b{i} : {dt} to f32" for i in range(len(ins))] if narrow else []
    lines += body + ([f"%o = arith.truncf %r : f32 to {dt}"] if narrow else [])
    lines.append(f"linalg.yield {'%o' if narrow else '%r'} : {dt}")
    block = ", ".join(f"%{'b' if narrow else 'a'}{i}: {dt}" for i in range(len(ins)))
    ident = ", ".join(f"d{i}" for i in range(n))
    parallel = ", ".join(['"parallel"'] * n)
    empty, _ = p.emit(f"tensor.empty() : {ty}", shape)
    return p.emit(f"linalg.generic {{indexing_maps = [{p.maps(n, [ident] * (len(ins) + 1))}], "
                  f"iterator_types = [{parallel}]}} ins({', '.join(ins)} : "
                  f"{', '.join([ty] * len(ins))}) outs({empty} : {ty}) {{\n"
                  f"  ^bb0({block}, %out: {dt}):\n" + "".join(f"    {x}\n" for x in lines) +
                  f"  }} -> {ty}", shape)[0]


def matmul(p, a, b, m, k, n, transpose_b=False):
    """[m, k] x [k, n], or x [n, k]^T with transpose_b."""
    bshape = [n, k] if transpose_b else [k, n]
    flag = " transpose_b" if transpose_b else ""
    return p.emit(f"tp.matmul {a}, {b}{flag} : {t([m, k], p.dt)}, {t(bshape, p.dt)} -> "
                  f"{t([m, n], p.dt)}", [m, n])[0]


def transpose(p, x, rows, cols):
    empty, _ = p.emit(f"tensor.empty() : {t([cols, rows], p.dt)}", [cols, rows])
    return p.emit(f"linalg.transpose ins({x} : {t([rows, cols], p.dt)}) outs({empty} : "
                  f"{t([cols, rows], p.dt)}) permutation = [1, 0]", [cols, rows])[0]


def add(p, a, b, shape):
    return p.emit(f"arith.addf {a}, {b} : {t(shape, p.dt)}", shape)[0]


class Activations:
    """Activations [..., cols] sharded along the sequence; 3-D ones are
    collapsed to [rows, cols] around each matmul and expanded back after it,
    as F.linear and its autograd do."""

    def __init__(self, layout, g):
        self.lead, self.g = LAYOUTS[layout], g
        self.dim = self.lead.index("s")
        self.full = [S if d == "s" else B for d in self.lead]
        self.rows = int(np.prod(self.full))

    def shape(self, cols):
        return self.full + [cols]

    def local(self):
        """This rank's shard of an [..., H] activation."""
        return [S // self.g if d == "s" else B for d in self.lead] + [H]

    def gather(self, p, x):
        return p.emit(f"tp.all_gather {x} on @tp axes = [0] dim = {self.dim} : "
                      f"{t(self.local(), p.dt)} -> {t(self.shape(H), p.dt)}", self.shape(H))[0]

    def scatter(self, p, y):
        return p.emit(f"tp.reduce_scatter {y} on @tp axes = [0] dim = {self.dim} reduce = sum : "
                      f"{t(self.shape(H), p.dt)} -> {t(self.local(), p.dt)}", self.local())[0]

    def flat(self, p, x, cols):
        if len(self.full) == 1:
            return x
        return p.emit(f"tensor.collapse_shape {x} [[0, 1], [2]] : {t(self.shape(cols), p.dt)} "
                      f"into {t([self.rows, cols], p.dt)}", [self.rows, cols])[0]

    def linear(self, p, x, w, k, n, transpose_b=False):
        y = matmul(p, self.flat(p, x, k), w, self.rows, k, n, transpose_b)
        if len(self.full) == 1:
            return y
        return p.emit(f"tensor.expand_shape {y} [[0, 1], [2]] output_shape {self.shape(n)} : "
                      f"{t([self.rows, n], p.dt)} into {t(self.shape(n), p.dt)}", self.shape(n))[0]

    def weight_grad(self, p, dy, x, n, k):
        """dW [n, k] = dy^T x over every row: dy [..., n], x [..., k]."""
        dyt = transpose(p, self.flat(p, dy, n), self.rows, n)
        return matmul(p, dyt, self.flat(p, x, k), n, self.rows, k)

    # numpy: all ranks' shards -> [rows, cols], and rows -> each rank's shard.
    def np_rows(self, shards, axis=None):
        return np.concatenate(shards, axis=self.dim if axis is None else axis).reshape(self.rows, -1)

    def np_shards(self, rows):
        return np.split(rows.reshape(self.full + [-1]), self.g, axis=self.dim)


def np_silu(h):
    return h / (1 + np.exp(-h))


def np_silu_grad(h):
    s = 1 / (1 + np.exp(-h))
    return s * (1 + h * (1 - s))


# Programs: (Program, [(argument, shape)], [(result, shape)], numpy
# reference over all ranks' inputs). `mode` says where the weight gradients'
# x comes from: "saved", the forward's gathered x; "regather", x gathered
# again right before them (the pipeline's CSE merges it with the forward's);
# "backward", a backward-only function, as when the forward and backward are
# compiled apart (AOTAutograd): the forward's saved activations are
# arguments (random: the backward's math does not need them to match x) and
# only the weight gradients gather x.

def mlp(g, dt, layout, mode):
    """y = SiLU(x W1^T) W2^T with W1 column- and W2 row-parallel; backward
    from dy: dA = dY W2 (gathered dY as A), dW2 = dY^T A, dH = dA * SiLU'(H),
    dX = dH W1 -> reduce-scatter, dW1 = dH^T X."""
    p, act, Fl = Program(dt, g), Activations(layout, g), F // g
    args = [("%x", act.local()), ("%w1", [Fl, H]), ("%w2", [H, Fl]), ("%dy", act.local())]
    results = []
    if mode == "backward":
        h = "%h"
        args.append((h, act.shape(Fl)))
    else:
        xg = act.gather(p, "%x")
        h = act.linear(p, xg, "%w1", H, Fl, transpose_b=True)
    a = pointwise(p, [h], act.shape(Fl), SILU)
    if mode != "backward":
        results.append((act.scatter(p, act.linear(p, a, "%w2", Fl, H, transpose_b=True)),
                        act.local()))
    dyg = act.gather(p, "%dy")
    da = act.linear(p, dyg, "%w2", H, Fl)
    dw2 = act.weight_grad(p, dyg, a, H, Fl)
    dh = pointwise(p, [h, da], act.shape(Fl), SILU_GRAD)
    dx = act.scatter(p, act.linear(p, dh, "%w1", Fl, H))
    X = xg if mode == "saved" else act.gather(p, "%x")
    dw1 = act.weight_grad(p, dh, X, Fl, H)
    results += [(dx, act.local()), (dw1, [Fl, H]), (dw2, [H, Fl])]

    def ref(ins):
        X, dY = act.np_rows([i[0] for i in ins]), act.np_rows([i[3] for i in ins])
        W1, W2 = np.concatenate([i[1] for i in ins]), np.concatenate([i[2] for i in ins], 1)
        Hh = act.np_rows([i[4] for i in ins], -1) if mode == "backward" else X @ W1.T
        A = np_silu(Hh)
        dH = (dY @ W2) * np_silu_grad(Hh)
        grads = [act.np_shards(dH @ W1), np.split(dH.T @ X, g), np.split(dY.T @ A, g, axis=1)]
        forward = [] if mode == "backward" else [act.np_shards(A @ W2.T)]
        return list(zip(*forward, *grads))
    return p, args, results, ref


def attn_proj(g, dt, mode):
    """Attention's projections, heads sharded: q, k, v = X Wq^T, X Wk^T,
    X Wv^T (column-parallel), out = O Wo^T (row-parallel) -> reduce-scatter.
    The attention core is a stand-in, o = q * k + v, so its backward stays
    elementwise: dq = dO * k, dk = dO * q, dv = dO. Backward: dO = dOut Wo,
    dWo = dOut^T O, dX = dq Wq + dk Wk + dv Wv -> reduce-scatter, and dWq,
    dWk, dWv contract dq, dk, dv with one gathered x."""
    p, act, Fl = Program(dt, g), Activations("2d", g), F // g
    R = act.rows
    args = [("%x", act.local()), ("%wq", [Fl, H]), ("%wk", [Fl, H]), ("%wv", [Fl, H]),
            ("%wo", [H, Fl]), ("%dout", act.local())]
    results = []
    if mode == "backward":
        q, k, v = "%q", "%k", "%v"
        args += [(s, [R, Fl]) for s in (q, k, v)]
    else:
        xg = act.gather(p, "%x")
        q, k, v = (act.linear(p, xg, w, H, Fl, transpose_b=True) for w in ("%wq", "%wk", "%wv"))
    o = pointwise(p, [q, k, v], [R, Fl], MUL_ADD)
    if mode != "backward":
        results.append((act.scatter(p, act.linear(p, o, "%wo", Fl, H, transpose_b=True)),
                        act.local()))
    doutg = act.gather(p, "%dout")
    do = act.linear(p, doutg, "%wo", H, Fl)
    dwo = act.weight_grad(p, doutg, o, H, Fl)
    dq = pointwise(p, [do, k], [R, Fl], MUL)
    dk = pointwise(p, [do, q], [R, Fl], MUL)
    dxp = add(p, add(p, act.linear(p, dq, "%wq", Fl, H), act.linear(p, dk, "%wk", Fl, H), [R, H]),
              act.linear(p, do, "%wv", Fl, H), [R, H])
    dx = act.scatter(p, dxp)
    X = xg if mode == "saved" else act.gather(p, "%x")
    dws = [act.weight_grad(p, d, X, Fl, H) for d in (dq, dk, do)]
    results += [(dx, act.local())] + [(d, [Fl, H]) for d in dws] + [(dwo, [H, Fl])]

    def ref(ins):
        X, dOut = act.np_rows([i[0] for i in ins]), act.np_rows([i[5] for i in ins])
        Wq, Wk, Wv = (np.concatenate([i[j] for i in ins]) for j in (1, 2, 3))
        Wo = np.concatenate([i[4] for i in ins], 1)
        if mode == "backward":
            Q, K, V = (np.concatenate([i[j] for i in ins], 1) for j in (6, 7, 8))
        else:
            Q, K, V = X @ Wq.T, X @ Wk.T, X @ Wv.T
        O = Q * K + V
        dO = dOut @ Wo
        dQ, dK = dO * K, dO * Q
        grads = [act.np_shards(dQ @ Wq + dK @ Wk + dO @ Wv),
                 *(np.split(d.T @ X, g) for d in (dQ, dK, dO)), np.split(dOut.T @ O, g, axis=1)]
        forward = [] if mode == "backward" else [act.np_shards(O @ Wo.T)]
        return list(zip(*forward, *grads))
    return p, args, results, ref


PROGRAMS = {
    "mlp_saved": lambda g, dt: mlp(g, dt, "2d", "saved"),
    "mlp_regather": lambda g, dt: mlp(g, dt, "2d", "regather"),
    "mlp_3d": lambda g, dt: mlp(g, dt, "batch_first", "regather"),
    "mlp_3d_seq_first": lambda g, dt: mlp(g, dt, "seq_first", "regather"),
    "attn_proj": lambda g, dt: attn_proj(g, dt, "regather"),
    "mlp_backward": lambda g, dt: mlp(g, dt, "2d", "backward"),
    "mlp_3d_backward": lambda g, dt: mlp(g, dt, "batch_first", "backward"),
    "attn_proj_backward": lambda g, dt: attn_proj(g, dt, "backward"),
}
STATS = re.compile(r"tp-async-tp: (\d+) all-gather-matmul \((\d+) matmuls absorbed\), "
                   r"(\d+) matmul-reduce-scatter, .*, (\d+) all-gather-contract, "
                   r"(\d+) collectives left unfused")


def program_text(name, g, dt):
    """The per-rank module, and its arguments, results and numpy reference."""
    p, args, results, ref = PROGRAMS[name](g, dt)
    text = p.function([(n, t(shape, dt)) for n, shape in args],
                      [(v, t(shape, dt)) for v, shape in results])
    return f"shard.grid @tp(shape = {g})\n" + text, args, ref


def fusion_stats(tp_opt, path):
    """The pipeline's fusion counts from its stats remark, plus the remark of
    every collective left unfused; or (None, output) when it fails."""
    out = run([tp_opt, path, "-o", os.devnull,
               f"--pass-pipeline=builtin.module({PIPELINE}{{stats emit-remarks}})"])
    stats = STATS.search(out.stdout)
    if out.returncode != 0 or not stats:
        return None, out.stdout
    agm, absorbed, mrs, agc, unfused = map(int, stats.groups())
    misses = re.findall(r"remark: ((?:all-gather|reduce-scatter) not fused: .*)", out.stdout)
    return (f"{agm + mrs + agc} fused: {agm} all-gather-matmul ({absorbed} matmuls), "
            f"{mrs} matmul-reduce-scatter, {agc} all-gather-contract; {unfused} unfused",
            misses), None


def check(name, g, dt, args, tmp):
    text, arguments, ref = program_text(name, g, dt)
    path = os.path.join(tmp, f"{name}_{g}_{dt}.mlir")
    with open(path, "w") as f:
        f.write(text)
    stats, failure = fusion_stats(args.tp_opt, path)
    if failure is not None:
        return False, failure
    summary, misses = stats
    rng = np.random.default_rng(1000 * g + len(name))
    inputs, dumps = os.path.join(tmp, f"in_{name}_{g}_{dt}"), os.path.join(tmp, f"out_{name}_{g}_{dt}")
    ins = []
    for r in range(g):
        os.makedirs(os.path.join(inputs, f"rank{r}"))
        values = [rng.uniform(-1, 1, shape).astype(np.float32) for _, shape in arguments]
        if dt == "bf16":
            values = [to_bf16(v) for v in values]
        for i, v in enumerate(values):
            np.save(os.path.join(inputs, f"rank{r}", f"arg{i}.npy"), v)
        ins.append([v.astype(np.float64) for v in values])
    ok, error, output = compare([args.tp_run, path, "--ranks", str(g), "--input-dir", inputs,
                                 "--dump-dir", dumps, "--pipeline", PIPELINE,
                                 "--compare-pipeline", ""] + transport_args(args))
    if not ok:
        return False, output
    worst, mismatch = worst_error(dumps, ref(ins))
    if mismatch:
        return False, mismatch
    if worst > TOLERANCE[dt]:
        return False, f"against numpy: normalized error {worst:.2e} > {TOLERANCE[dt]:.0e}"
    return True, (f"{summary}; vs unfused {error}, vs numpy {worst:.2e}" +
                  "".join(f"\n  remark: {m}" for m in misses))


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
