#!/usr/bin/env python3
"""Bytes per rank of an all-gather before and after tp-async-tp moves the
dequantization below it, and what the cost model predicts for the gather.

For each layer (Llama-3 70B projections at TP 8, an activation sequence-
sharded before its column-parallel GEMM), scaling mode and wide type, this
writes the per-rank program as frameworks write it (quantized activation and
weight, both dequantized, the activation all-gathered wide), runs
`tp-opt --tp-async-tp` with the h100-nvlink preset, and prints:
- the bytes each rank receives, from the pass's remark (after) and from the
  wide gather (before);
- the predicted collective and GEMM times (h100-nvlink) of the same layer
  gathered and multiplied wide, and of the narrowed program.

    fp8_gather_bytes.py [--tp-opt build/bin/tp-opt]

A benchmark of the compiler and the model, not a test: it runs nothing.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
G = 8
# (layer, rows per rank (M / 8), K, N per rank)
LAYERS = [
    ("70B QKV, M 2048", 256, 8192, 1280),
    ("70B MLP up, M 8192", 1024, 8192, 3584),
]
MODES = {  # mode: (data type, scale type for rows x K, global scale)
    "per_tensor": ("f8E4M3FN", lambda r, k: "tensor<f32>", False),
    "row_wise": ("f8E4M3FN", lambda r, k: f"tensor<{r}x1xf32>", False),
    "mxfp8": ("f8E4M3FN", lambda r, k: f"tensor<{r}x{k // 32}xf8E8M0FNU>", False),
    "nvfp4": ("f4E2M1FN", lambda r, k: f"tensor<{r}x{k // 16}xf8E4M3FN>", True),
}


def program(rows, k, n, mode, wide):
    data, scale, has_global = MODES[mode]
    rep = " {tp.replicated}"
    x, w = f"tensor<{rows}x{k}x{data}>", f"tensor<{n}x{k}x{data}>"
    xw, gw, ww, y = (f"tensor<{rows}x{k}x{wide}>", f"tensor<{rows * G}x{k}x{wide}>",
                     f"tensor<{n}x{k}x{wide}>", f"tensor<{rows * G}x{n}x{wide}>")
    # Per-tensor and global scales must be the group's to narrow; block and
    # row scales travel with their rows.
    sx_rep = rep if mode == "per_tensor" else ""
    args = [f"%x: {x}", f"%sx: {scale(rows, k)}{sx_rep}", f"%w: {w}", f"%sw: {scale(n, k)}"]
    gx = gwt = ""
    if has_global:
        args += [f"%gx: tensor<f32>{rep}", "%gw: tensor<f32>"]
        gx, gwt = " global %gx", " global %gw"
    glob_t = ", tensor<f32>" if has_global else ""
    return f"""shard.grid @tp(shape = {G})
func.func @main({", ".join(args)}) -> {y} {{
  %dx = tp.dequantize %x scale %sx{gx} {mode} : ({x}, {scale(rows, k)}{glob_t}) -> {xw}
  %g = tp.all_gather %dx on @tp axes = [0] dim = 0 : {xw} -> {gw}
  %dw = tp.dequantize %w scale %sw{gwt} {mode} : ({w}, {scale(n, k)}{glob_t}) -> {ww}
  %y = tp.matmul %g, %dw transpose_b : {gw}, {ww} -> {y}
  return %y : {y}
}}
"""


def wide_program(rows, k, n, wide):
    x, gx, w, y = (f"tensor<{rows}x{k}x{wide}>", f"tensor<{rows * G}x{k}x{wide}>",
                   f"tensor<{n}x{k}x{wide}>", f"tensor<{rows * G}x{n}x{wide}>")
    return f"""shard.grid @tp(shape = {G})
func.func @main(%x: {x}, %w: {w}) -> {y} {{
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : {x} -> {gx}
  %y = tp.matmul %g, %w transpose_b : {gx}, {w} -> {y}
  return %y : {y}
}}
"""


def remarks(tp_opt, text, tmp, name):
    path = os.path.join(tmp, name + ".mlir")
    with open(path, "w") as f:
        f.write(text)
    out = subprocess.run([tp_opt, path, "--tp-async-tp=emit-remarks target=h100-nvlink",
                          "-o", os.devnull], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(out.stderr)
    return out.stderr


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tp-opt", default=os.path.join(ROOT, "build", "bin", "tp-opt"))
    args = parser.parse_args()
    print("| layer | mode | gathered as | bytes per rank (wide) | bytes per rank (narrow) "
          "| ratio | collective us (wide -> narrow) | GEMM us (wide -> narrow) |")
    print("|---|---|---|---|---|---|---|---|")
    times = re.compile(r"unfused: collective ([\d.]+) us \+ GEMM ([\d.]+) us")
    with tempfile.TemporaryDirectory() as tmp:
        for layer, rows, k, n in LAYERS:
            for mode in MODES:
                for wide in ("bf16", "f32"):
                    narrow = remarks(args.tp_opt, program(rows, k, n, mode, wide), tmp, "n")
                    kept = remarks(args.tp_opt, wide_program(rows, k, n, wide), tmp, "w")
                    moved = re.search(r"moves (\S+) data.* instead of \S+: (\d+) bytes per rank "
                                      r"instead of (\d+)", narrow)
                    t_narrow, t_wide = times.search(narrow), times.search(kept)
                    if not moved or not t_narrow or not t_wide:
                        sys.exit(f"unexpected remarks for {layer} {mode} {wide}:\n{narrow}\n{kept}")
                    after, before = int(moved.group(2)), int(moved.group(3))
                    print(f"| {layer} | {mode} | {wide} | {before} | {after} | "
                          f"{before / after:.2f} | {t_wide.group(1)} -> {t_narrow.group(1)} | "
                          f"{t_wide.group(2)} -> {t_narrow.group(2)} |")


if __name__ == "__main__":
    main()
