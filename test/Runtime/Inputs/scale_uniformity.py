#!/usr/bin/env python3
"""FP8/NVFP4 all-gather with per-tensor scales that differ per rank.

Each rank's activation shard has its own magnitude (rank r's is scaled by
4^r), so each rank's own amax, and with it its per-tensor (NVFP4: global)
scale, differs. Two per-rank programs quantize the shard, all-gather it and
multiply it by the rank's column-parallel weight:

- `group`: the amax is all-reduced (max) first, so every rank quantizes with
  the same scale. The pipeline must fuse the all-gather, the fused run must
  match the unfused one, and both must match numpy, which quantizes every
  piece with the group's scale (the format's rounding modelled exactly) and
  multiplies in float64.
- `own`: each rank uses its own amax. The pipeline must refuse to fuse, with
  the remark saying why, and the program's result must be far from numpy's:
  the pieces from other ranks are dequantized with this rank's scale, which
  is what the fused op would silently have done too.

With `--dequantize-first`, the programs dequantize the shard (and the
weight) and all-gather the wide values, as frameworks write it:

- `group`: the pass must gather the narrow data instead (its remark gives the
  bytes) and fuse the scaled GEMM; the results match numpy as above.
- `own`: the pass must keep the wide gather (the remark names the scale) and
  still fuse it; each piece was dequantized with its own rank's scale, so the
  result matches numpy's model of exactly that.

    scale_uniformity.py --tp-opt BIN --tp-run BIN [--ranks 2 4 8]
                        [--modes per_tensor nvfp4] [--dtypes f32 bf16]
                        [--dequantize-first] [--transport mpi]

Prints one line per case and "passed N of N"; exits 1 on any failure.
"""
import argparse
import os
import re
import tempfile

import numpy as np

from numerics_common import add_transport, compare, finish, report, run, transport_args

R, K, N = 8, 64, 32  # rows per rank, K, local output columns
# Largest |result - numpy| / max |numpy| accepted with the group scale (numpy
# quantizes exactly as docs/Semantics.md says, so only the GEMM's f32
# accumulation and the output rounding differ), and the least expected with
# per-rank scales.
TOLERANCE = {"f32": 1e-5, "bf16": 8e-3}
MISMATCH = 0.5


def format_values(bits_exp, bits_man, bias, codes):
    """Non-negative values of a float format without infinities, by code."""
    values = []
    for c in range(codes):
        e, m = c >> bits_man, c & ((1 << bits_man) - 1)
        frac = m / (1 << bits_man)
        values.append(frac * 2.0 ** (1 - bias) if e == 0 else (1 + frac) * 2.0 ** (e - bias))
    return np.array(values)


E4M3 = format_values(4, 3, 7, 127)  # 0x7F is NaN; 448 is the largest
E2M1 = format_values(2, 1, 1, 8)    # 0, 0.5, ..., 6


def round_to(values, x):
    """Rounds to the nearest value of the table, ties to the even code,
    saturating at the largest (what tp-run's conversions do)."""
    mag = np.minimum(np.abs(x), values[-1])
    hi = np.clip(np.searchsorted(values, mag), 1, len(values) - 1)
    lo = hi - 1
    dlo, dhi = mag - values[lo], values[hi] - mag
    pick = np.where((dlo < dhi) | ((dlo == dhi) & (lo % 2 == 0)), lo, hi)
    return np.sign(x) * values[pick]


def dequantized(x, mode, amax):
    """x quantized with `amax` as tp.quantize does, then dequantized."""
    x = x.astype(np.float64)
    if mode == "per_tensor":
        s = np.float64(np.float32(amax / 448.0 if amax else 1.0))
        return round_to(E4M3, x / s) * s
    g = np.float64(np.float32(amax / 2688.0 if amax else 1.0))
    blocks = x.reshape(x.shape[0], -1, 16)
    bs = round_to(E4M3, np.abs(blocks).max(-1, keepdims=True) / 6.0 / g)
    scale = bs * g
    data = np.where(scale > 0, round_to(E2M1, blocks / np.where(scale > 0, scale, 1)), 0)
    return (data * scale).reshape(x.shape)


TYPES = {  # mode: data type, scale type for [rows, K], global scale type
    "per_tensor": ("f8E4M3FN", lambda rows: "tensor<f32>", ""),
    "nvfp4": ("f4E2M1FN", lambda rows: f"tensor<{rows}x{K // 16}xf8E4M3FN>", "tensor<f32>"),
}


def dequantize_first_program(g, mode, dt, group_scale):
    """As program(), but dequantized before the all-gather."""
    data, scale, glob = TYPES[mode]
    text = program(g, mode, dt, group_scale)
    head = text[:text.index("  %g = tp.all_gather")]
    q, wq = f"tensor<{R}x{K}x{data}>", f"tensor<{N}x{K}x{data}>"
    x, gx, w, y = (f"tensor<{R}x{K}x{dt}>", f"tensor<{R * g}x{K}x{dt}>", f"tensor<{N}x{K}x{dt}>",
                   f"tensor<{R * g}x{N}x{dt}>")
    glob_type = f", {glob}" if glob else ""
    for name, rows, data_type, wide in (("x", R, q, x), ("w", N, wq, w)):
        g_operand = f" global %{name}g" if glob else ""
        head += (f"  %{name}d = tp.dequantize %{name}q scale %{name}s{g_operand} {mode} : "
                 f"({data_type}, {scale(rows)}{glob_type}) -> {wide}\n")
    head += f"  %g = tp.all_gather %xd on @tp axes = [0] dim = 0 : {x} -> {gx}\n"
    head += f"  %y = tp.matmul %g, %wd transpose_b : {gx}, {w} -> {y}\n"
    return head + f"  return %y : {y}\n}}\n"


def program(g, mode, dt, group_scale):
    data, scale, glob = TYPES[mode]
    x, w, y = f"tensor<{R}x{K}xf32>", f"tensor<{N}x{K}xf32>", f"tensor<{R * g}x{N}x{dt}>"
    q, gq = f"tensor<{R}x{K}x{data}>", f"tensor<{R * g}x{K}x{data}>"
    wq = f"tensor<{N}x{K}x{data}>"
    quant = lambda rows: ", ".join(t for t in [scale(rows), glob] if t)
    text = f"shard.grid @tp(shape = {g})\nfunc.func @main(%x: {x}, %w: {w}) -> {y} {{\n"
    amax = ""
    if group_scale:
        text += f"""  %abs = math.absf %x : {x}
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<f32>) -> tensor<f32>
  %local = linalg.reduce ins(%abs : {x}) outs(%init : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %b: f32) {{
      %m = arith.maximumf %a, %b : f32
      linalg.yield %m : f32
    }}
  %amax = tp.all_reduce %local on @tp axes = [0] reduce = max : tensor<f32>
"""
        amax = " amax %amax"
    xg = ", %xg" if glob else ""
    wg = ", %wg" if glob else ""
    text += f"  %xq, %xs{xg} = tp.quantize %x{amax} {mode} : {x} -> {q}, {quant(R)}\n"
    text += f"  %wq, %ws{wg} = tp.quantize %w {mode} : {w} -> {wq}, {quant(N)}\n"
    text += f"  %g = tp.all_gather %xq on @tp axes = [0] dim = 0 : {q} -> {gq}\n"
    a_scale, a_scale_type = "%xs", scale(R)
    if mode == "nvfp4":  # block scales travel with their blocks
        a_scale, a_scale_type = "%gs", scale(R * g)
        text += f"  %gs = tp.all_gather %xs on @tp axes = [0] dim = 0 : {scale(R)} -> {a_scale_type}\n"
    a_glob = " global %xg" if glob else ""
    w_glob = " global %wg" if glob else ""
    glob_type = f", {glob}" if glob else ""
    text += (f"  %y = tp.scaled_matmul %g scale {a_scale}{a_glob}, %wq scale %ws{w_glob} {mode} : "
             f"({gq}, {a_scale_type}{glob_type}, {wq}, {scale(N)}{glob_type}) -> {y}\n")
    return text + f"  return %y : {y}\n}}\n"


def check(g, mode, dt, group_scale, args, tmp):
    name = f"{mode}_{'group' if group_scale else 'own'}_{g}_{dt}"
    path = os.path.join(tmp, name + ".mlir")
    first = args.dequantize_first
    with open(path, "w") as f:
        f.write((dequantize_first_program if first else program)(g, mode, dt, group_scale))
    fused = run([args.tp_opt, path, "--tp-async-tp-pipeline=emit-remarks"])
    if fused.returncode != 0:
        return False, fused.stdout
    is_fused = "tp.all_gather_scaled_matmul" in fused.stdout
    what = "per-tensor scale" if mode == "per_tensor" else "global scale"
    refused = re.search(f"A's {what} is not known to be the same on every rank", fused.stdout)
    if first:
        # Narrowed and fused as a scaled GEMM, or kept wide and fused as is.
        narrowed = re.search(r"all-gather moves \S+ data.* instead of \S+: (\d+) bytes per rank "
                             r"instead of (\d+)", fused.stdout)
        is_fused = is_fused and narrowed
        refused = (re.search(f"stays {dt}: its {what} is not known to be the same on every rank",
                             fused.stdout)
                   and "tp.all_gather_matmul" in fused.stdout)
    if group_scale and not is_fused:
        return False, "expected the all-gather to fuse\n" + fused.stdout
    if not group_scale and (is_fused or not refused):
        return False, "expected a refusal naming A's scale\n" + fused.stdout

    rng = np.random.default_rng(100 * g + len(mode))
    inputs, dumps = os.path.join(tmp, "in_" + name), os.path.join(tmp, "out_" + name)
    xs, ws = [], []
    for r in range(g):
        os.makedirs(os.path.join(inputs, f"rank{r}"))
        xs.append((rng.uniform(-1, 1, (R, K)) * 4.0 ** r).astype(np.float32))
        ws.append(rng.uniform(-1, 1, (N, K)).astype(np.float32))
        np.save(os.path.join(inputs, f"rank{r}", "arg0.npy"), xs[-1])
        np.save(os.path.join(inputs, f"rank{r}", "arg1.npy"), ws[-1])
    ok, error, output = compare([args.tp_run, path, "--ranks", str(g), "--input-dir", inputs,
                                 "--dump-dir", dumps, "--pipeline", "tp-async-tp-pipeline",
                                 "--compare-pipeline", ""] + transport_args(args))
    if not ok:
        return False, output
    # The group's scale for every piece; each weight with its own. Pieces
    # dequantized before a wide gather keep their own rank's scale.
    amax = max(np.abs(x).max() for x in xs)
    own = first and not group_scale
    full = np.concatenate([dequantized(x, mode, np.abs(x).max() if own else amax) for x in xs])
    worst = 0.0
    for r in range(g):
        expected = full @ dequantized(ws[r], mode, np.abs(ws[r]).max()).T
        got = np.load(os.path.join(dumps, f"rank{r}", "result0.npy")).astype(np.float64)
        worst = max(worst, np.abs(got - expected).max() / np.abs(expected).max())
    if (group_scale or own) and worst > TOLERANCE[dt]:
        return False, f"against numpy: normalized error {worst:.2e} > {TOLERANCE[dt]}"
    if not group_scale and not own and worst < MISMATCH:
        return False, f"per-rank scales should be far from numpy, got {worst:.2e}"
    verdict = "fused" if group_scale else "refused"
    if first and group_scale:
        verdict += f", {narrowed.group(1)} instead of {narrowed.group(2)} bytes per rank"
    return True, f"{verdict}; fused vs unfused {error}, vs numpy {worst:.2e}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tp-opt", required=True)
    parser.add_argument("--tp-run", required=True)
    parser.add_argument("--ranks", type=int, nargs="+", default=[2, 4, 8])
    parser.add_argument("--modes", nargs="+", default=sorted(TYPES), choices=sorted(TYPES))
    parser.add_argument("--dtypes", nargs="+", default=["f32", "bf16"])
    parser.add_argument("--dequantize-first", action="store_true",
                        help="dequantize before the all-gather, which gathers wide values")
    add_transport(parser)
    args = parser.parse_args()
    total = passed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for mode in args.modes:
            for g in args.ranks:
                for dt in args.dtypes:
                    for group_scale in (True, False):
                        total += 1
                        ok, detail = check(g, mode, dt, group_scale, args, tmp)
                        passed += ok
                        tag = f"{mode} {'group' if group_scale else 'own'} scale g={g} {dt}"
                        report(f"{tag}: ok ({detail})" if ok else f"{tag}: FAILED", ok, detail)
    finish(passed, total)


if __name__ == "__main__":
    main()
