#!/usr/bin/env python3
"""Writes a per-rank program of L chained sequence-parallel MLP blocks.

Each block: all_gather(x, seq) -> gate and up matmuls -> mul -> down matmul
-> reduce_scatter(sum, seq), the output feeding the next block. With
`--level linear` the blocks are written with tp.linear instead (lowered by
tp-lower-linear first). With `--looped` the blocks are one scf.for over
weights stacked [L, ...], as scan-over-layers frameworks write them.

    gen_mlp_chain.py L [--ranks G] [--level ops|linear] [--looped] > chain.mlir
"""
import argparse
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("layers", type=int)
    parser.add_argument("--ranks", type=int, default=8)
    parser.add_argument("--seq", type=int, default=64)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--ffn", type=int, default=64, help="per-rank FFN width")
    parser.add_argument("--level", choices=["ops", "linear"], default="ops")
    parser.add_argument("--looped", action="store_true",
                        help="one scf.for over stacked weights (ops level)")
    args = parser.parse_args()
    if args.looped:
        write_looped(args)
        return

    g, s, h, f = args.ranks, args.seq, args.hidden, args.ffn
    local = s // g
    x_t = f"tensor<{local}x{h}xf32>"
    full_t = f"tensor<{s}x{h}xf32>"
    w_in_t = f"tensor<{f}x{h}xf32>"
    w_out_t = f"tensor<{h}x{f}xf32>"
    hid_t = f"tensor<{s}x{f}xf32>"
    out = sys.stdout
    out.write(f"shard.grid @tp(shape = {g})\n")
    out.write(f"func.func @chain(%x: {x_t}, %wg: {w_in_t}, %wu: {w_in_t}, "
              f"%wd: {w_out_t}) -> {x_t} {{\n")
    cur = "%x"
    for i in range(args.layers):
        if args.level == "ops":
            out.write(
                f"  %g{i} = tp.all_gather {cur} on @tp axes = [0] dim = 0 : {x_t} -> {full_t}\n"
                f"  %a{i} = tp.matmul %g{i}, %wg transpose_b : {full_t}, {w_in_t} -> {hid_t}\n"
                f"  %b{i} = tp.matmul %g{i}, %wu transpose_b : {full_t}, {w_in_t} -> {hid_t}\n"
                f"  %m{i} = arith.mulf %a{i}, %b{i} : {hid_t}\n"
                f"  %d{i} = tp.matmul %m{i}, %wd transpose_b : {hid_t}, {w_out_t} -> {full_t}\n"
                f"  %y{i} = tp.reduce_scatter %d{i} on @tp axes = [0] dim = 0 reduce = sum : {full_t} -> {x_t}\n")
        else:
            out.write(
                f"  %a{i} = tp.linear {cur}, %wg on @tp axes = [0] column input = shard(0) output = shard(1) : ({x_t}, {w_in_t}) -> {hid_t}\n"
                f"  %b{i} = tp.linear {cur}, %wu on @tp axes = [0] column input = shard(0) output = shard(1) : ({x_t}, {w_in_t}) -> {hid_t}\n"
                f"  %m{i} = arith.mulf %a{i}, %b{i} : {hid_t}\n"
                f"  %y{i} = tp.linear %m{i}, %wd on @tp axes = [0] row input = shard(1) output = shard(0) : ({hid_t}, {w_out_t}) -> {x_t}\n")
        cur = f"%y{i}"
    out.write(f"  return {cur} : {x_t}\n}}\n")


def write_looped(args):
    g, s, h, f, n = args.ranks, args.seq, args.hidden, args.ffn, args.layers
    local = s // g
    x_t, full_t = f"tensor<{local}x{h}xf32>", f"tensor<{s}x{h}xf32>"
    w_in_t, w_out_t = f"tensor<{f}x{h}xf32>", f"tensor<{h}x{f}xf32>"
    hid_t = f"tensor<{s}x{f}xf32>"
    stacked_in, stacked_out = f"tensor<{n}x{f}x{h}xf32>", f"tensor<{n}x{h}x{f}xf32>"
    sys.stdout.write(
        f"shard.grid @tp(shape = {g})\n"
        f"func.func @chain(%x: {x_t}, %wg: {stacked_in}, %wu: {stacked_in}, "
        f"%wd: {stacked_out}) -> {x_t} {{\n"
        f"  %c0 = arith.constant 0 : index\n"
        f"  %c1 = arith.constant 1 : index\n"
        f"  %cn = arith.constant {n} : index\n"
        f"  %y = scf.for %i = %c0 to %cn step %c1 iter_args(%cur = %x) -> ({x_t}) {{\n"
        f"    %wgi = tensor.extract_slice %wg[%i, 0, 0] [1, {f}, {h}] [1, 1, 1] : "
        f"{stacked_in} to {w_in_t}\n"
        f"    %wui = tensor.extract_slice %wu[%i, 0, 0] [1, {f}, {h}] [1, 1, 1] : "
        f"{stacked_in} to {w_in_t}\n"
        f"    %wdi = tensor.extract_slice %wd[%i, 0, 0] [1, {h}, {f}] [1, 1, 1] : "
        f"{stacked_out} to {w_out_t}\n"
        f"    %g = tp.all_gather %cur on @tp axes = [0] dim = 0 : {x_t} -> {full_t}\n"
        f"    %a = tp.matmul %g, %wgi transpose_b : {full_t}, {w_in_t} -> {hid_t}\n"
        f"    %b = tp.matmul %g, %wui transpose_b : {full_t}, {w_in_t} -> {hid_t}\n"
        f"    %m = arith.mulf %a, %b : {hid_t}\n"
        f"    %d = tp.matmul %m, %wdi transpose_b : {hid_t}, {w_out_t} -> {full_t}\n"
        f"    %r = tp.reduce_scatter %d on @tp axes = [0] dim = 0 reduce = sum : "
        f"{full_t} -> {x_t}\n"
        f"    scf.yield %r : {x_t}\n"
        f"  }}\n"
        f"  return %y : {x_t}\n}}\n")


if __name__ == "__main__":
    main()
