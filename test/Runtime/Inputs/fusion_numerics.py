#!/usr/bin/env python3
"""Numerics of every fusion pattern: fused vs unfused, executed by tp-run.

For each pattern, group size and element type this writes the unfused per-rank
program, checks that tp-async-tp fuses every collective in it, then runs it on
the CPU backend twice (as written, and after `tp-async-tp{algorithm chunks}`)
on the same seeded inputs and requires every result on every rank to match.

    fusion_numerics.py --tp-opt BIN --tp-run BIN PATTERN... [--ranks 1 2 3 4 8]
                       [--dtypes f32 bf16] [--schedules per_peer:1 ring:3 per_peer:2:2]
                       [--backend cuda --compare-backend cpu --tolerance X]
                       [--transport mpi|nccl] [--jobs N]

Prints one line per run and a final "passed N of N" line; exits 1 on any
failure.
"""
import argparse
import concurrent.futures
import os
import re
import tempfile

from numerics_common import TRANSPORT_HELP, add_transport, compare, finish, report, run, transport_args

K, N, F, R, B, S = 32, 16, 24, 4, 2, 3  # per-rank sizes


def t(shape, dtype):
    return "tensor<" + "x".join(str(d) for d in shape) + f"x{dtype}>"


def ag_matmul(g, dt):
    x, gx, w, y = t([R, K], dt), t([R * g, K], dt), t([K, N], dt), t([R * g, N], dt)
    return f"""
func.func @main(%x: {x}, %w: {w}) -> {y} {{
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : {x} -> {gx}
  %y = tp.matmul %g, %w : {gx}, {w} -> {y}
  return %y : {y}
}}"""


def ag_matmul_bias_t(g, dt):
    x, gx, w, b, y = t([R, K], dt), t([R * g, K], dt), t([N, K], dt), t([N], dt), t([R * g, N], dt)
    return f"""
func.func @main(%x: {x}, %w: {w}, %b: {b}) -> {y} {{
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : {x} -> {gx}
  %m = tp.matmul %g, %w transpose_b : {gx}, {w} -> {y}
  %y = tp.bias_add %m, %b : {y}, {b}
  return %y : {y}
}}"""


def ag_kdim(g, dt):
    x, gx, w, y = t([R, 8], dt), t([R, 8 * g], dt), t([8 * g, N], dt), t([R, N], dt)
    return f"""
func.func @main(%x: {x}, %w: {w}) -> {y} {{
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : {x} -> {gx}
  %y = tp.matmul %g, %w : {gx}, {w} -> {y}
  return %y : {y}
}}"""


def ag_reshape_seq(g, dt):
    x, gx = t([B, S, K], dt), t([B, S * g, K], dt)
    c, w, m, b, y = t([B * S * g, K], dt), t([N, K], dt), t([B * S * g, N], dt), t([N], dt), t([B, S * g, N], dt)
    return f"""
func.func @main(%x: {x}, %w: {w}, %b: {b}) -> {y} {{
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : {x} -> {gx}
  %c = tensor.collapse_shape %g [[0, 1], [2]] : {gx} into {c}
  %m = tp.matmul %c, %w transpose_b : {c}, {w} -> {m}
  %e = tensor.expand_shape %m [[0, 1], [2]] output_shape [{B}, {S * g}, {N}] : {m} into {y}
  %y = tp.bias_add %e, %b : {y}, {b}
  return %y : {y}
}}"""


def ag_tensor_reshape(g, dt):
    """The collapse of ag_reshape_seq written as a tensor.reshape."""
    x, gx = t([B, S, K], dt), t([B, S * g, K], dt)
    c, w, m = t([B * S * g, K], dt), t([K, N], dt), t([B * S * g, N], dt)
    return f"""
func.func @main(%x: {x}, %w: {w}) -> {m} {{
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : {x} -> {gx}
  %shape = arith.constant dense<[{B * S * g}, {K}]> : tensor<2xi64>
  %c = tensor.reshape %g(%shape) : ({gx}, tensor<2xi64>) -> {c}
  %m = tp.matmul %c, %w : {c}, {w} -> {m}
  return %m : {m}
}}"""


def ag_bmm(g, dt):
    x, gx, w, y = t([B, S, K], dt), t([B, S * g, K], dt), t([N, K], dt), t([B, S * g, N], dt)
    return f"""
func.func @main(%x: {x}, %w: {w}) -> {y} {{
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : {x} -> {gx}
  %y = tp.batch_matmul %g, %w transpose_b : {gx}, {w} -> {y}
  return %y : {y}
}}"""


def ag_multi_partial(g, dt):
    x, gx, wq, wk = t([R, K], dt), t([R * g, K], dt), t([N, K], dt), t([8, K], dt)
    q, k, s, d = t([R * g, N], dt), t([R * g, 8], dt), t([R, K], dt), t([R * g, R], dt)
    return f"""
func.func @main(%x: {x}, %wq: {wq}, %wk: {wk}) -> ({gx}, {q}, {k}, {d}) {{
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : {x} -> {gx}
  %q = tp.matmul %g, %wq transpose_b : {gx}, {wq} -> {q}
  %k = tp.matmul %g, %wk transpose_b : {gx}, {wk} -> {k}
  %s = tensor.extract_slice %g[0, 0] [{R}, {K}] [1, 1] : {gx} to {s}
  %d = tp.matmul %g, %s transpose_b : {gx}, {s} -> {d}
  return %g, %q, %k, %d : {gx}, {q}, {k}, {d}
}}"""


def rs_matmul(g, dt):
    h, w, p, y = t([R * g, F], dt), t([F, N], dt), t([R * g, N], dt), t([R, N], dt)
    return f"""
func.func @main(%h: {h}, %w: {w}) -> {y} {{
  %p = tp.matmul %h, %w : {h}, {w} -> {p}
  %y = tp.reduce_scatter %p on @tp axes = [0] dim = 0 reduce = sum : {p} -> {y}
  return %y : {y}
}}"""


def rs_lastdim_avg(g, dt):
    h, w, p, y = t([R, F], dt), t([N * g, F], dt), t([R, N * g], dt), t([R, N], dt)
    return f"""
func.func @main(%h: {h}, %w: {w}) -> {y} {{
  %p = tp.matmul %h, %w transpose_b : {h}, {w} -> {p}
  %y = tp.reduce_scatter %p on @tp axes = [0] dim = 1 reduce = avg : {p} -> {y}
  return %y : {y}
}}"""


def rs_reshape_bias(g, dt):
    h, c = t([B, S * g, F], dt), t([B * S * g, F], dt)
    w, m, p, r, b = t([N, F], dt), t([B * S * g, N], dt), t([B, S * g, N], dt), t([B, S, N], dt), t([N], dt)
    return f"""
func.func @main(%h: {h}, %w: {w}, %b: {b}) -> {r} {{
  %c = tensor.collapse_shape %h [[0, 1], [2]] : {h} into {c}
  %m = tp.matmul %c, %w transpose_b : {c}, {w} -> {m}
  %p = tensor.expand_shape %m [[0, 1], [2]] output_shape [{B}, {S * g}, {N}] : {m} into {p}
  %r = tp.reduce_scatter %p on @tp axes = [0] dim = 1 reduce = sum : {p} -> {r}
  %y = tp.bias_add %r, %b : {r}, {b}
  return %y : {r}
}}"""


def rs_matrix_expand(g, dt):
    """Glue on the 2-D activation: only the product is split into
    [batch, seq, hidden] before the reduce-scatter along seq."""
    h, w = t([B * S * g, F], dt), t([F, N], dt)
    m, p, r = t([B * S * g, N], dt), t([B, S * g, N], dt), t([B, S, N], dt)
    return f"""
func.func @main(%h: {h}, %w: {w}) -> {r} {{
  %a = math.tanh %h : {h}
  %m = tp.matmul %a, %w : {h}, {w} -> {m}
  %p = tensor.expand_shape %m [[0, 1], [2]] output_shape [{B}, {S * g}, {N}] : {m} into {p}
  %r = tp.reduce_scatter %p on @tp axes = [0] dim = 1 reduce = sum : {p} -> {r}
  return %r : {r}
}}"""


def rs_tensor_reshape(g, dt):
    """The expand of rs_matrix_expand written as a tensor.reshape."""
    h, w = t([B * S * g, F], dt), t([F, N], dt)
    m, p, r = t([B * S * g, N], dt), t([B, S * g, N], dt), t([B, S, N], dt)
    return f"""
func.func @main(%h: {h}, %w: {w}) -> {r} {{
  %m = tp.matmul %h, %w : {h}, {w} -> {m}
  %shape = arith.constant dense<[{B}, {S * g}, {N}]> : tensor<3xi64>
  %p = tensor.reshape %m(%shape) : ({m}, tensor<3xi64>) -> {p}
  %r = tp.reduce_scatter %p on @tp axes = [0] dim = 1 reduce = sum : {p} -> {r}
  return %r : {r}
}}"""


def rs_addend(g, dt):
    h, w, p, y = t([R * g, F], dt), t([F, N], dt), t([R * g, N], dt), t([R, N], dt)
    return f"""
func.func @main(%h: {h}, %w: {w}, %c: {p}) -> {y} {{
  %p = tp.matmul %h, %w : {h}, {w} -> {p}
  %s = arith.addf %c, %p : {p}
  %y = tp.reduce_scatter %s on @tp axes = [0] dim = 0 reduce = sum : {p} -> {y}
  return %y : {y}
}}"""


def rs_unreduced(g, dt):
    h, w, p, y = t([R * g, F], dt), t([F, N], dt), t([R * g, N], dt), t([R, N], dt)
    return f"""
func.func @main(%h: {h}, %w: {w}) -> ({y}, {p}) {{
  %p = tp.matmul %h, %w : {h}, {w} -> {p}
  %n = arith.negf %p : {p}
  %y = tp.reduce_scatter %p on @tp axes = [0] dim = 0 reduce = sum : {p} -> {y}
  return %y, %n : {y}, {p}
}}"""


def rs_bmm(g, dt):
    h, w, p, y = t([B, S * g, F], dt), t([N, F], dt), t([B, S * g, N], dt), t([B, S, N], dt)
    return f"""
func.func @main(%h: {h}, %w: {w}) -> {y} {{
  %p = tp.batch_matmul %h, %w transpose_b : {h}, {w} -> {p}
  %y = tp.reduce_scatter %p on @tp axes = [0] dim = 1 reduce = sum : {p} -> {y}
  return %y : {y}
}}"""


SCALES = {  # mode: (data type, scale type for [rows, 64], has global)
    "per_tensor": ("f8E4M3FN", lambda rows: "tensor<f32>", False),
    "row_wise": ("f8E4M3FN", lambda rows: f"tensor<{rows}x1xf32>", False),
    "mxfp8": ("f8E4M3FN", lambda rows: f"tensor<{rows}x2xf8E8M0FNU>", False),
    "nvfp4": ("f4E2M1FN", lambda rows: f"tensor<{rows}x4xf8E4M3FN>", True),
}


def quantize(name, rows, mode, amax=None):
    data, scale, has_global = SCALES[mode]
    q = f"tensor<{rows}x64x{data}>"
    results = f"%{name}q, %{name}s" + (f", %{name}g" if has_global else "")
    types = f"{q}, {scale(rows)}" + (", tensor<f32>" if has_global else "")
    given = f" amax %{amax}" if amax else ""
    return q, f"  {results} = tp.quantize %{name}{given} {mode} : tensor<{rows}x64xf32> -> {types}\n"


def group_amax(name, rows):
    """max |x| over the whole group: this rank's amax, all-reduced (max). A
    per-tensor (or NVFP4 global) scale of a gathered operand must be the same
    on every rank."""
    x = f"tensor<{rows}x64xf32>"
    return f"""  %{name}_abs = math.absf %{name} : {x}
  %{name}_zero = arith.constant 0.0 : f32
  %{name}_empty = tensor.empty() : tensor<f32>
  %{name}_init = linalg.fill ins(%{name}_zero : f32) outs(%{name}_empty : tensor<f32>) -> tensor<f32>
  %{name}_local = linalg.reduce ins(%{name}_abs : {x}) outs(%{name}_init : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %b: f32) {{
      %m = arith.maximumf %a, %b : f32
      linalg.yield %m : f32
    }}
  %{name}_amax = tp.all_reduce %{name}_local on @tp axes = [0] reduce = max : tensor<f32>
"""


def scaled_operand(name, data, scale, glob):
    return f"%{data} scale %{scale}" + (f" global %{glob}" if glob else "")


def sc_ag(mode):
    def build(g, dt):
        _, scale_type, has_global = SCALES[mode]
        shared = mode in ("per_tensor", "nvfp4")  # one scale for all pieces
        qx, qxs = quantize("x", R, mode, "x_amax" if shared else None)
        qw, qws = quantize("w", N, mode)
        gq = qx.replace(f"<{R}x", f"<{R * g}x")
        y = t([R * g, N], dt)
        text = f"func.func @main(%x: tensor<{R}x64xf32>, %w: tensor<{N}x64xf32>) -> {y} {{\n"
        text += (group_amax("x", R) if shared else "") + qxs + qws
        text += f"  %g = tp.all_gather %xq on @tp axes = [0] dim = 0 : {qx} -> {gq}\n"
        a_scale = "xs"
        a_scale_type = scale_type(R)
        if mode != "per_tensor":
            a_scale, a_scale_type = "gs", scale_type(R * g)
            text += f"  %gs = tp.all_gather %xs on @tp axes = [0] dim = 0 : {scale_type(R)} -> {a_scale_type}\n"
        glob = ", tensor<f32>" if has_global else ""
        text += (f"  %y = tp.scaled_matmul {scaled_operand('g', 'g', a_scale, 'xg' if has_global else None)}, "
                 f"{scaled_operand('w', 'wq', 'ws', 'wg' if has_global else None)} {mode} : "
                 f"({gq}, {a_scale_type}{glob}, {qw}, {scale_type(N)}{glob}) -> {y}\n")
        return "\n" + text + f"  return %y : {y}\n}}"
    return build


def sc_rs(mode):
    def build(g, dt):
        _, scale_type, has_global = SCALES[mode]
        qh, qhs = quantize("h", R * g, mode)
        qw, qws = quantize("w", N, mode)
        p, y = t([R * g, N], dt), t([R, N], dt)
        glob = ", tensor<f32>" if has_global else ""
        text = f"func.func @main(%h: tensor<{R * g}x64xf32>, %w: tensor<{N}x64xf32>) -> {y} {{\n" + qhs + qws
        text += (f"  %p = tp.scaled_matmul {scaled_operand('h', 'hq', 'hs', 'hg' if has_global else None)}, "
                 f"{scaled_operand('w', 'wq', 'ws', 'wg' if has_global else None)} {mode} : "
                 f"({qh}, {scale_type(R * g)}{glob}, {qw}, {scale_type(N)}{glob}) -> {p}\n")
        text += f"  %y = tp.reduce_scatter %p on @tp axes = [0] dim = 0 reduce = sum : {p} -> {y}\n"
        return "\n" + text + f"  return %y : {y}\n}}"
    return build


def sc_ag_reshape_reciprocal(g, dt):
    """The all-gather side: a 3-D FP8 A and its row-wise scale gathered along
    the sequence, F.linear's reshapes, and the reciprocal of the gathered
    scale after its reshape (the fused op takes it of each shard)."""
    rows, seq = B * S * g, S * g
    qw, qws = quantize("w", N, "row_wise")
    x3, q3, s3 = f"tensor<{B}x{S}x64xf32>", f"tensor<{B}x{S}x64xf8E4M3FN>", f"tensor<{B}x{S}x1xf32>"
    gq3, gs3 = f"tensor<{B}x{seq}x64xf8E4M3FN>", f"tensor<{B}x{seq}x1xf32>"
    q2, s2 = f"tensor<{rows}x64xf8E4M3FN>", f"tensor<{rows}x1xf32>"
    p2, y = t([rows, N], dt), t([B, seq, N], dt)
    return f"""
func.func @main(%x: {x3}, %w: tensor<{N}x64xf32>) -> {y} {{
  %xq, %xs = tp.quantize %x row_wise : {x3} -> {q3}, {s3}
{qws}  %g = tp.all_gather %xq on @tp axes = [0] dim = 1 : {q3} -> {gq3}
  %gs = tp.all_gather %xs on @tp axes = [0] dim = 1 : {s3} -> {gs3}
  %c = tensor.collapse_shape %g [[0, 1], [2]] : {gq3} into {q2}
  %cs = tensor.collapse_shape %gs [[0, 1], [2]] : {gs3} into {s2}
  %one = arith.constant dense<1.0> : {s2}
  %inv = arith.divf %one, %cs : {s2}
  %m = tp.scaled_matmul %c scale %inv, %wq scale %ws row_wise : ({q2}, {s2}, {qw}, tensor<{N}x1xf32>) -> {p2}
  %y = tensor.expand_shape %m [[0, 1], [2]] output_shape [{B}, {seq}, {N}] : {p2} into {y}
  return %y : {y}
}}"""


def sc_rs_reshape_reciprocal(g, dt):
    """PyTorch's reshape_mm_reshape row-wise case: F.linear's reshapes of a
    3-D FP8 A and its row-wise scale, and the scale's reciprocal taken after
    its reshape (the fused op takes it before)."""
    rows, seq = B * S * g, S * g
    qw, qws = quantize("w", N, "row_wise")
    h3, q3, s3 = f"tensor<{B}x{seq}x64xf32>", f"tensor<{B}x{seq}x64xf8E4M3FN>", f"tensor<{B}x{seq}x1xf32>"
    q2, s2 = f"tensor<{rows}x64xf8E4M3FN>", f"tensor<{rows}x1xf32>"
    p2, p3, y = t([rows, N], dt), t([B, seq, N], dt), t([B, S, N], dt)
    return f"""
func.func @main(%h: {h3}, %w: tensor<{N}x64xf32>) -> {y} {{
  %hq, %hs = tp.quantize %h row_wise : {h3} -> {q3}, {s3}
{qws}  %c = tensor.collapse_shape %hq [[0, 1], [2]] : {q3} into {q2}
  %cs = tensor.collapse_shape %hs [[0, 1], [2]] : {s3} into {s2}
  %one = arith.constant dense<1.0> : {s2}
  %inv = arith.divf %one, %cs : {s2}
  %m = tp.scaled_matmul %c scale %inv, %wq scale %ws row_wise : ({q2}, {s2}, {qw}, tensor<{N}x1xf32>) -> {p2}
  %p = tensor.expand_shape %m [[0, 1], [2]] output_shape [{B}, {seq}, {N}] : {p2} into {p3}
  %y = tp.reduce_scatter %p on @tp axes = [0] dim = 1 reduce = sum : {p3} -> {y}
  return %y : {y}
}}"""


def dequantized(name, rows, mode, dt, amax=None, cols=64):
    """`name` quantized, then dequantized to `dt`: the program gathers or
    multiplies the wide values, as frameworks write it."""
    data, scale, has_global = SCALES[mode]
    q, text = quantize(name, rows, mode, amax)
    if cols != 64:
        q, text = q.replace("x64x", f"x{cols}x"), text.replace("x64x", f"x{cols}x")
        text = text.replace(f"tensor<{rows}x2xf8E8M0FNU>", f"tensor<{rows}x{cols // 32}xf8E8M0FNU>")
    glob = f" global %{name}g" if has_global else ""
    glob_type = ", tensor<f32>" if has_global else ""
    scale_type = "tensor<f32>" if mode == "per_tensor" else scale(rows)
    wide = f"tensor<{rows}x{cols}x{dt}>"
    text += (f"  %{name}d = tp.dequantize %{name}q scale %{name}s{glob} {mode} : "
             f"({q}, {scale_type}{glob_type}) -> {wide}\n")
    return wide, text


def dq_ag(mode):
    """The activation dequantized before its all-gather, and the weight
    dequantized too: the pass gathers the FP8 (or FP4) data and its scales and
    fuses the scaled GEMM."""
    def build(g, dt):
        shared = mode in ("per_tensor", "nvfp4")
        x, text = dequantized("x", R, mode, dt, "x_amax" if shared else None)
        w, wtext = dequantized("w", N, mode, dt)
        gx, y = t([R * g, 64], dt), t([R * g, N], dt)
        head = f"func.func @main(%x: tensor<{R}x64xf32>, %w: tensor<{N}x64xf32>) -> {y} {{\n"
        body = (group_amax("x", R) if shared else "") + text + wtext
        body += f"  %g = tp.all_gather %xd on @tp axes = [0] dim = 0 : {x} -> {gx}\n"
        body += f"  %y = tp.matmul %g, %wd transpose_b : {gx}, {w} -> {y}\n"
        return "\n" + head + body + f"  return %y : {y}\n}}"
    return build


def dq_ag_kn(g, dt):
    """A per-tensor FP8 weight given as [K, N]: the scaled GEMM takes its
    transpose."""
    x, text = dequantized("x", R, "per_tensor", dt, "x_amax")
    w, wtext = dequantized("w", 64, "per_tensor", dt, cols=N)
    gx, y = t([R * g, 64], dt), t([R * g, N], dt)
    return f"""
func.func @main(%x: tensor<{R}x64xf32>, %w: tensor<64x{N}xf32>) -> {y} {{
{group_amax("x", R)}{text}{wtext}  %g = tp.all_gather %xd on @tp axes = [0] dim = 0 : {x} -> {gx}
  %y = tp.matmul %g, %wd : {gx}, {w} -> {y}
  return %y : {y}
}}"""


def dq_ag_seq(g, dt):
    """A 3-D activation dequantized row-wise, gathered along the sequence, and
    multiplied through F.linear's reshapes."""
    seq = S * g
    q3, s3, x3 = f"tensor<{B}x{S}x64xf8E4M3FN>", f"tensor<{B}x{S}x1xf32>", f"tensor<{B}x{S}x64x{dt}>"
    gx3, x2 = f"tensor<{B}x{seq}x64x{dt}>", f"tensor<{B * seq}x64x{dt}>"
    w, wtext = dequantized("w", N, "row_wise", dt)
    p2, y = t([B * seq, N], dt), t([B, seq, N], dt)
    return f"""
func.func @main(%x: tensor<{B}x{S}x64xf32>, %w: tensor<{N}x64xf32>) -> {y} {{
  %xq, %xs = tp.quantize %x row_wise : tensor<{B}x{S}x64xf32> -> {q3}, {s3}
  %xd = tp.dequantize %xq scale %xs row_wise : ({q3}, {s3}) -> {x3}
{wtext}  %g = tp.all_gather %xd on @tp axes = [0] dim = 1 : {x3} -> {gx3}
  %c = tensor.collapse_shape %g [[0, 1], [2]] : {gx3} into {x2}
  %m = tp.matmul %c, %wd transpose_b : {x2}, {w} -> {p2}
  %y = tensor.expand_shape %m [[0, 1], [2]] output_shape [{B}, {seq}, {N}] : {p2} into {y}
  return %y : {y}
}}"""


def dq_ag_bmm(g, dt):
    """MXFP8, the bmm path: a 3-D dequantized activation gathered along the
    sequence and a batched matmul with a 2-D weight."""
    seq = S * g
    q3, s3, x3 = (f"tensor<{B}x{S}x64xf8E4M3FN>", f"tensor<{B}x{S}x2xf8E8M0FNU>",
                  f"tensor<{B}x{S}x64x{dt}>")
    gx3 = f"tensor<{B}x{seq}x64x{dt}>"
    w, wtext = dequantized("w", N, "mxfp8", dt)
    y = t([B, seq, N], dt)
    return f"""
func.func @main(%x: tensor<{B}x{S}x64xf32>, %w: tensor<{N}x64xf32>) -> {y} {{
  %xq, %xs = tp.quantize %x mxfp8 : tensor<{B}x{S}x64xf32> -> {q3}, {s3}
  %xd = tp.dequantize %xq scale %xs mxfp8 : ({q3}, {s3}) -> {x3}
{wtext}  %g = tp.all_gather %xd on @tp axes = [0] dim = 1 : {x3} -> {gx3}
  %y = tp.batch_matmul %g, %wd transpose_b : {gx3}, {w} -> {y}
  return %y : {y}
}}"""


def dq_ag_saved(g, dt):
    """The dequantized gathered value also returned (saved for backward): it
    is dequantized again from the FP8 data and scales the fused op returns."""
    x, text = dequantized("x", R, "row_wise", dt)
    w, wtext = dequantized("w", N, "row_wise", dt)
    gx, y = t([R * g, 64], dt), t([R * g, N], dt)
    return f"""
func.func @main(%x: tensor<{R}x64xf32>, %w: tensor<{N}x64xf32>) -> ({y}, {gx}) {{
{text}{wtext}  %g = tp.all_gather %xd on @tp axes = [0] dim = 0 : {x} -> {gx}
  %y = tp.matmul %g, %wd transpose_b : {gx}, {w} -> {y}
  return %y, %g : {y}, {gx}
}}"""


def dq_glue(mode):
    """Dequantization written as f32 glue (widen, times a broadcast scale):
    linalg.broadcast for A, one linalg.generic for B."""
    def build(g, dt):
        per_tensor = mode == "per_tensor"
        qx, qxs = quantize("x", R, mode, "x_amax" if per_tensor else None)
        qw, qws = quantize("w", N, mode)
        gx, y = t([R * g, 64], "f32"), t([R * g, N], "f32")

        def scale_of(name, rows):
            if per_tensor:
                return f"%{name}s", "tensor<f32>", "", "[0, 1]", "()"
            return (f"%{name}r", f"tensor<{rows}xf32>",
                    f"  %{name}r = tensor.collapse_shape %{name}s [[0, 1]] : tensor<{rows}x1xf32> into tensor<{rows}xf32>\n",
                    "[1]", "(d0)")
        xs, xs_type, xs_text, xs_dims, _ = scale_of("x", R)
        ws, ws_type, ws_text, _, ws_map = scale_of("w", N)
        text = (group_amax("x", R) if per_tensor else "") + qxs + qws + xs_text + ws_text
        text += f"""  %xf = arith.extf %xq : {qx} to tensor<{R}x64xf32>
  %xe = tensor.empty() : tensor<{R}x64xf32>
  %xb = linalg.broadcast ins({xs} : {xs_type}) outs(%xe : tensor<{R}x64xf32>) dimensions = {xs_dims}
  %xd = arith.mulf %xf, %xb : tensor<{R}x64xf32>
  %g = tp.all_gather %xd on @tp axes = [0] dim = 0 : tensor<{R}x64xf32> -> {gx}
  %we = tensor.empty() : tensor<{N}x64xf32>
  %wd = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> {ws_map}>, affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}}
      ins(%wq, {ws} : {qw}, {ws_type}) outs(%we : tensor<{N}x64xf32>) {{
    ^bb0(%a: f8E4M3FN, %s: f32, %o: f32):
      %f = arith.extf %a : f8E4M3FN to f32
      %m = arith.mulf %f, %s : f32
      linalg.yield %m : f32
  }} -> tensor<{N}x64xf32>
  %p = tp.matmul %g, %wd transpose_b : {gx}, tensor<{N}x64xf32> -> {y}
"""
        out = t([R * g, N], dt)
        if dt != "f32":
            text += f"  %y = arith.truncf %p : {y} to {out}\n"
        else:
            text = text.replace("%p = tp.matmul", "%y = tp.matmul")
        head = f"func.func @main(%x: tensor<{R}x64xf32>, %w: tensor<{N}x64xf32>) -> {out} {{\n"
        return "\n" + head + text + f"  return %y : {out}\n}}"
    return build


def ag_dq(g, dt):
    """Gathered in FP8 by the program itself (data and row-wise scales), then
    dequantized next to the dot, as XLA writes it."""
    qx, qxs = quantize("x", R, "row_wise")
    w, wtext = dequantized("w", N, "row_wise", dt)
    gq, gs, gx, y = (f"tensor<{R * g}x64xf8E4M3FN>", f"tensor<{R * g}x1xf32>",
                     t([R * g, 64], dt), t([R * g, N], dt))
    return f"""
func.func @main(%x: tensor<{R}x64xf32>, %w: tensor<{N}x64xf32>) -> {y} {{
{qxs}{wtext}  %g = tp.all_gather %xq on @tp axes = [0] dim = 0 : {qx} -> {gq}
  %gs = tp.all_gather %xs on @tp axes = [0] dim = 0 : tensor<{R}x1xf32> -> {gs}
  %gd = tp.dequantize %g scale %gs row_wise : ({gq}, {gs}) -> {gx}
  %y = tp.matmul %gd, %wd transpose_b : {gx}, {w} -> {y}
  return %y : {y}
}}"""


def a2a_rows(g, dt):
    """Ulysses' exchange before a projection: [S/g, H] split on H, stacked
    on S, then x W + b; each arriving block makes its own rows."""
    x, e, w, b, y = t([R, 8 * g], dt), t([R * g, 8], dt), t([8, N], dt), t([N], dt), t([R * g, N], dt)
    return f"""
func.func @main(%x: {x}, %w: {w}, %b: {b}) -> {y} {{
  %e = tp.all_to_all %x on @tp axes = [0] split = 1 concat = 0 : {x} -> {e}
  %m = tp.matmul %e, %w : {e}, {w} -> {y}
  %y = tp.bias_add %m, %b : {y}, {b}
  return %y : {y}
}}"""


def a2a_seq3d(g, dt):
    """A 3-D activation exchanged (heads -> sequence), F.linear's reshapes,
    and the exchanged value also returned."""
    x, e = t([B, S, 8 * g], dt), t([B, S * g, 8], dt)
    e2, w, p2, y = t([B * S * g, 8], dt), t([N, 8], dt), t([B * S * g, N], dt), t([B, S * g, N], dt)
    return f"""
func.func @main(%x: {x}, %w: {w}) -> ({y}, {e}) {{
  %e = tp.all_to_all %x on @tp axes = [0] split = 2 concat = 1 : {x} -> {e}
  %c = tensor.collapse_shape %e [[0, 1], [2]] : {e} into {e2}
  %m = tp.matmul %c, %w transpose_b : {e2}, {w} -> {p2}
  %y = tensor.expand_shape %m [[0, 1], [2]] output_shape [{B}, {S * g}, {N}] : {p2} into {y}
  return %y, %e : {y}, {e}
}}"""


def a2a_kdim(g, dt):
    """Blocks stacked along K: each arriving block is a partial product."""
    x, e, w, y = t([R * g, 8], dt), t([R, 8 * g], dt), t([8 * g, N], dt), t([R, N], dt)
    return f"""
func.func @main(%x: {x}, %w: {w}) -> {y} {{
  %e = tp.all_to_all %x on @tp axes = [0] split = 0 concat = 1 : {x} -> {e}
  %y = tp.matmul %e, %w : {e}, {w} -> {y}
  return %y : {y}
}}"""


def a2a_experts(g, dt):
    """Tokens dispatched to their experts' ranks ([E, C, H] split on E,
    stacked on C), then a batched matmul with one weight (the bmm path)."""
    x, e, w, y = t([2 * g, S, K], dt), t([2, S * g, K], dt), t([K, N], dt), t([2, S * g, N], dt)
    return f"""
func.func @main(%x: {x}, %w: {w}) -> {y} {{
  %e = tp.all_to_all %x on @tp axes = [0] split = 0 concat = 1 : {x} -> {e}
  %y = tp.batch_matmul %e, %w : {e}, {w} -> {y}
  return %y : {y}
}}"""


def a2a_expert_weights(g, dt):
    """An expert-parallel MoE layer's dispatch: tokens [E, C, H] split on
    the experts, stacked on the capacity, each expert's tokens multiplied by
    that expert's own weight [E/g, H, F] as they arrive."""
    x, e, w, y = t([2 * g, S, K], dt), t([2, S * g, K], dt), t([2, K, N], dt), t([2, S * g, N], dt)
    return f"""
func.func @main(%x: {x}, %w: {w}) -> {y} {{
  %e = tp.all_to_all %x on @tp axes = [0] split = 0 concat = 1 : {x} -> {e}
  %y = tp.batch_matmul %e, %w : {e}, {w} -> {y}
  return %y : {y}
}}"""


def a2a_prod_cols(g, dt):
    """Ulysses' sequence -> heads exchange of a projection's product: x W
    [S/g, H] split on H (the heads), stacked on S; each peer's columns are
    computed and sent while the next are."""
    x, w, p, e = t([R, K], dt), t([K, 4 * g], dt), t([R, 4 * g], dt), t([R * g, 4], dt)
    return f"""
func.func @main(%x: {x}, %w: {w}) -> {e} {{
  %p = tp.matmul %x, %w : {x}, {w} -> {p}
  %e = tp.all_to_all %p on @tp axes = [0] split = 1 concat = 0 : {p} -> {e}
  return %e : {e}
}}"""


def a2a_prod_rows(g, dt):
    """A product's rows sent to their ranks and stacked along N."""
    x, w, p, e = t([R * g, K], dt), t([N, K], dt), t([R * g, N], dt), t([R, N * g], dt)
    return f"""
func.func @main(%x: {x}, %w: {w}) -> {e} {{
  %p = tp.matmul %x, %w transpose_b : {x}, {w} -> {p}
  %e = tp.all_to_all %p on @tp axes = [0] split = 0 concat = 1 : {p} -> {e}
  return %e : {e}
}}"""


def a2a_prod_linear(g, dt):
    """F.linear's reshapes around the product of a 3-D activation, the
    product also returned (kept for the backward)."""
    x, c, w = t([B, S * g, K], dt), t([B * S * g, K], dt), t([4 * g, K], dt)
    p2, p, e = t([B * S * g, 4 * g], dt), t([B, S * g, 4 * g], dt), t([B, S * g * g, 4], dt)
    return f"""
func.func @main(%x: {x}, %w: {w}) -> ({e}, {p}) {{
  %c = tensor.collapse_shape %x [[0, 1], [2]] : {x} into {c}
  %m = tp.matmul %c, %w transpose_b : {c}, {w} -> {p2}
  %p = tensor.expand_shape %m [[0, 1], [2]] output_shape [{B}, {S * g}, {4 * g}] : {p2} into {p}
  %e = tp.all_to_all %p on @tp axes = [0] split = 2 concat = 1 : {p} -> {e}
  return %e, %p : {e}, {p}
}}"""


def a2a_prod_expert_weights(g, dt):
    """An expert-parallel MoE layer's combine: each local expert's outputs
    [E/g, g C, H] (its own weight), the rows cut by the rank their tokens
    came from, sent back and stacked along the experts: [E, C, H]."""
    h, w, o, e = t([2, S * g, K], dt), t([2, K, N], dt), t([2, S * g, N], dt), t([2 * g, S, N], dt)
    return f"""
func.func @main(%h: {h}, %w: {w}) -> {e} {{
  %o = tp.batch_matmul %h, %w : {h}, {w} -> {o}
  %e = tp.all_to_all %o on @tp axes = [0] split = 1 concat = 0 : {o} -> {e}
  return %e : {e}
}}"""


def a2a_prod_transposed(g, dt):
    """Ulysses' heads -> sequence exchange after attention: per-head
    outputs P V [heads/g, S, D] transposed to [S, heads/g, D], then the
    sequence split and the heads stacked. The transpose moves below the
    exchange, and each peer's rows of every head are computed and sent."""
    a, v, o = t([2, S * g, 8], dt), t([2, 8, 4], dt), t([2, S * g, 4], dt)
    ot, e = t([S * g, 2, 4], dt), t([S, 2 * g, 4], dt)
    return f"""
func.func @main(%a: {a}, %v: {v}) -> {e} {{
  %o = tp.batch_matmul %a, %v : {a}, {v} -> {o}
{_transpose("ot", "o", [S * g, 2, 4], dt, perm=(1, 0, 2))}  %e = tp.all_to_all %ot on @tp axes = [0] split = 0 concat = 1 : {ot} -> {e}
  return %e : {e}
}}"""


def a2a_transposed_consumer(g, dt):
    """A transpose between the exchange and the projection: [S/g, H] split
    on H, stacked on S, transposed to [H/g, S], times W."""
    x, e, et, w, y = t([R, 8 * g], dt), t([R * g, 8], dt), t([8, R * g], dt), t([R * g, N], dt), t([8, N], dt)
    return f"""
func.func @main(%x: {x}, %w: {w}) -> {y} {{
  %e = tp.all_to_all %x on @tp axes = [0] split = 1 concat = 0 : {x} -> {e}
{_transpose("et", "e", [8, R * g], dt)}  %y = tp.matmul %et, %w : {et}, {w} -> {y}
  return %y : {y}
}}"""


def linear_mlp(g, dt):
    x, wg, wd, h, y, b = t([B, S, K], dt), t([N, K], dt), t([K, N], dt), t([B, S * g, N], dt), t([B, S, K], dt), t([K], dt)
    return f"""
func.func @main(%x: {x}, %wg: {wg}, %wu: {wg}, %wd: {wd}, %bd: {b}) -> {y} {{
  %gate = tp.linear %x, %wg on @tp axes = [0] column input = shard(1) output = shard(2) : ({x}, {wg}) -> {h}
  %up = tp.linear %x, %wu on @tp axes = [0] column input = shard(1) output = shard(2) : ({x}, {wg}) -> {h}
  %act = math.tanh %gate : {h}
  %mul = arith.mulf %act, %up : {h}
  %y = tp.linear %mul, %wd bias %bd on @tp axes = [0] row input = shard(2) output = shard(1) : ({h}, {wd}, {b}) -> {y}
  return %y : {y}
}}"""


# Weight gradients (tp.all_gather_contract): the gathered value contracted
# over the gathered dim.
def _transpose(name, src, shape, dt, perm=(1, 0)):
    """%name = %src transposed to `shape` (result dim i = source dim perm[i])."""
    out = t(shape, dt)
    source = [0] * len(shape)
    for i, p in enumerate(perm):
        source[p] = shape[i]
    return (f"  %e_{name} = tensor.empty() : {out}\n"
            f"  %{name} = linalg.transpose ins(%{src} : {t(source, dt)}) "
            f"outs(%e_{name} : {out}) permutation = [{', '.join(map(str, perm))}]\n")


def agc_wgrad(g, dt):
    """dW = dY^T . all_gather(x): the gathered value as B."""
    x, gx, dy, dw = t([R, K], dt), t([R * g, K], dt), t([R * g, N], dt), t([N, K], dt)
    return f"""
func.func @main(%x: {x}, %dy: {dy}) -> {dw} {{
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : {x} -> {gx}
{_transpose("dyt", "dy", [N, R * g], dt)}  %dw = tp.matmul %dyt, %g : {t([N, R * g], dt)}, {gx} -> {dw}
  return %dw : {dw}
}}"""


def agc_transposed_a(g, dt):
    """all_gather(dy)^T . a: the gathered value as a transposed A."""
    x, gx, a, dw = t([R, N], dt), t([R * g, N], dt), t([R * g, K], dt), t([N, K], dt)
    return f"""
func.func @main(%x: {x}, %a: {a}) -> {dw} {{
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : {x} -> {gx}
{_transpose("gt", "g", [N, R * g], dt)}  %dw = tp.matmul %gt, %a : {t([N, R * g], dt)}, {a} -> {dw}
  return %dw : {dw}
}}"""


def agc_shared_transpose(g, dt):
    """all_gather(x)^T . dq and all_gather(x)^T . dk: two weight gradients
    read one transpose of the gathered value (as CSE leaves them)."""
    x, gx, dq, dk = t([R, K], dt), t([R * g, K], dt), t([R * g, N], dt), t([R * g, F], dt)
    gt, wq, wk = t([K, R * g], dt), t([K, N], dt), t([K, F], dt)
    return f"""
func.func @main(%x: {x}, %dq: {dq}, %dk: {dk}) -> ({wq}, {wk}) {{
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : {x} -> {gx}
{_transpose("gt", "g", [K, R * g], dt)}  %wq = tp.matmul %gt, %dq : {gt}, {dq} -> {wq}
  %wk = tp.matmul %gt, %dk : {gt}, {dk} -> {wk}
  return %wq, %wk : {wq}, {wk}
}}"""


def agc_ksplit_b(g, dt):
    """a . all_gather(w, K)^T with B given as [N, K]."""
    x, gx, a, y = t([N, 8], dt), t([N, 8 * g], dt), t([R, 8 * g], dt), t([R, N], dt)
    return f"""
func.func @main(%x: {x}, %a: {a}) -> {y} {{
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : {x} -> {gx}
  %y = tp.matmul %a, %g transpose_b : {a}, {gx} -> {y}
  return %y : {y}
}}"""


def agc_seq3d(g, dt):
    """[B, S, K] activations gathered along S, collapsed, three gradients."""
    x, gx, c = t([B, S, K], dt), t([B, S * g, K], dt), t([B * S * g, K], dt)
    dy, dw = t([B * S * g, N], dt), t([N, K], dt)
    grads = "".join(
        _transpose(f"t{i}", f"d{i}", [N, B * S * g], dt)
        + f"  %w{i} = tp.matmul %t{i}, %c : {t([N, B * S * g], dt)}, {c} -> {dw}\n"
        for i in range(3))
    return f"""
func.func @main(%x: {x}, %d0: {dy}, %d1: {dy}, %d2: {dy}) -> ({dw}, {dw}, {dw}) {{
  %g = tp.all_gather %x on @tp axes = [0] dim = 1 : {x} -> {gx}
  %c = tensor.collapse_shape %g [[0, 1], [2]] : {gx} into {c}
{grads}  return %w0, %w1, %w2 : {dw}, {dw}, {dw}
}}"""


def agc_seqfirst(g, dt):
    """[S, B, K] activations gathered along S (dim 0), transposed A."""
    x, gx, c = t([S, B, K], dt), t([S * g, B, K], dt), t([S * g * B, K], dt)
    dy, dw = t([S * g * B, N], dt), t([K, N], dt)
    return f"""
func.func @main(%x: {x}, %dy: {dy}) -> {dw} {{
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : {x} -> {gx}
  %c = tensor.collapse_shape %g [[0, 1], [2]] : {gx} into {c}
{_transpose("ct", "c", [K, S * g * B], dt)}  %dw = tp.matmul %ct, %dy : {t([K, S * g * B], dt)}, {dy} -> {dw}
  return %dw : {dw}
}}"""


PATTERNS = {
    "ag_matmul": ag_matmul, "ag_matmul_bias_t": ag_matmul_bias_t, "ag_kdim": ag_kdim,
    "ag_reshape_seq": ag_reshape_seq, "ag_tensor_reshape": ag_tensor_reshape, "ag_bmm": ag_bmm, "ag_multi_partial": ag_multi_partial,
    "rs_matmul": rs_matmul, "rs_lastdim_avg": rs_lastdim_avg, "rs_reshape_bias": rs_reshape_bias,
    "rs_matrix_expand": rs_matrix_expand, "sc_rs_reshape_reciprocal": sc_rs_reshape_reciprocal,
    "sc_ag_reshape_reciprocal": sc_ag_reshape_reciprocal, "rs_tensor_reshape": rs_tensor_reshape, "rs_addend": rs_addend, "rs_unreduced": rs_unreduced, "rs_bmm": rs_bmm,
    "linear_mlp": linear_mlp,
    "agc_wgrad": agc_wgrad, "agc_transposed_a": agc_transposed_a,
    "agc_shared_transpose": agc_shared_transpose,
    "agc_ksplit_b": agc_ksplit_b, "agc_seq3d": agc_seq3d, "agc_seqfirst": agc_seqfirst,
}
PATTERNS.update({"a2a_rows": a2a_rows, "a2a_seq3d": a2a_seq3d, "a2a_kdim": a2a_kdim,
                 "a2a_experts": a2a_experts, "a2a_expert_weights": a2a_expert_weights,
                 "a2a_prod_cols": a2a_prod_cols, "a2a_prod_rows": a2a_prod_rows,
                 "a2a_prod_linear": a2a_prod_linear,
                 "a2a_prod_expert_weights": a2a_prod_expert_weights,
                 "a2a_prod_transposed": a2a_prod_transposed,
                 "a2a_transposed_consumer": a2a_transposed_consumer})
PATTERNS.update({"dq_ag_kn": dq_ag_kn, "dq_ag_seq": dq_ag_seq, "dq_ag_bmm": dq_ag_bmm,
                 "dq_ag_saved": dq_ag_saved, "ag_dq": ag_dq})
PATTERNS.update({"dq_glue_per_tensor": dq_glue("per_tensor"), "dq_glue_row_wise": dq_glue("row_wise")})
for _mode in SCALES:
    PATTERNS[f"dq_ag_{_mode}"] = dq_ag(_mode)
    PATTERNS[f"sc_ag_{_mode}"] = sc_ag(_mode)
    PATTERNS[f"sc_rs_{_mode}"] = sc_rs(_mode)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("patterns", nargs="+", choices=sorted(PATTERNS))
    parser.add_argument("--tp-opt", required=True)
    parser.add_argument("--tp-run", required=True)
    parser.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 3, 4, 8])
    parser.add_argument("--dtypes", nargs="+", default=["f32", "bf16"])
    parser.add_argument("--schedules", nargs="+", default=["per_peer:1", "ring:2"])
    parser.add_argument("--backend", default="cpu", help="backend of the fused run")
    parser.add_argument("--compare-backend", default="cpu",
                        help="backend of the unfused reference run")
    parser.add_argument("--tolerance", help="tp-run --tolerance (default: by type)")
    add_transport(parser, TRANSPORT_HELP + "; cuda: loopback or nccl")
    parser.add_argument("--jobs", type=int, default=1,
                        help="tp-run processes at a time (a GPU machine's cores)")
    args = parser.parse_args()
    backends = (["--backend", args.backend, "--compare-backend", args.compare_backend]
                + transport_args(args))
    if args.tolerance:
        backends += ["--tolerance", args.tolerance]

    total = passed = 0
    runs = []  # (tag, tp-run command), run after every program is written
    with tempfile.TemporaryDirectory() as tmp:
        for pattern in args.patterns:
            for g in args.ranks:
                for dt in args.dtypes:
                    path = os.path.join(tmp, f"{pattern}_{g}_{dt}.mlir")
                    with open(path, "w") as f:
                        f.write(f"shard.grid @tp(shape = {g})\n" + PATTERNS[pattern](g, dt) + "\n")
                    # Every collective fuses (layers are lowered first).
                    stats = run([args.tp_opt, path, "--tp-lower-linear", "--cse",
                                 "--tp-async-tp=stats", "-o", os.devnull])
                    m = re.search(r"(\d+) collectives left unfused", stats.stdout)
                    if stats.returncode != 0 or not m or m.group(1) != "0":
                        report(f"{pattern} g={g} {dt}: FAILED to fuse", False, stats.stdout)
                        total += 1
                        continue
                    for schedule in args.schedules:
                        # algorithm:chunks, or algorithm:chunks:streams
                        algorithm, chunks, *streams = schedule.split(":")
                        total += 1
                        fused = (f"cse,tp-async-tp{{algorithm={algorithm} chunks={chunks}"
                                 + (f" streams={streams[0]}" if streams else "") + "}")
                        label = f"{algorithm}/{chunks}" + (f"/{streams[0]}" if streams else "")
                        runs.append((f"{pattern} g={g} {dt} {label}",
                                     [args.tp_run, path, "--ranks", str(g), "--seed", str(g),
                                      "--pipeline", fused, "--compare-pipeline", ""] + backends))
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            verdicts = pool.map(lambda r: compare(r[1]), runs)
            for (tag, _), (ok, error, output) in zip(runs, verdicts):
                passed += ok
                report(f"{tag}: ok ({error})" if ok else f"{tag}: FAILED", ok, output)
    finish(passed, total)


if __name__ == "__main__":
    main()
