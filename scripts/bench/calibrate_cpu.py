#!/usr/bin/env python3
"""Calibrates the cost model's target description on this machine's CPU
backend (ranks are threads) and writes it as JSON (docs/CostModel.md).

Every number comes from tp-run's traces of small programs timed in steady
state (loop_timing.py: --copies instances back to back in a loop of
--repeat trips, memory reused as in a training loop), the best instance:
- GEMMs per element type: tp.matmul (tp.scaled_matmul for f8) on --ranks
  ranks at once (the ranks share the cores, as in any run), over shapes that
  vary rows, FLOPs and B's size apart, fitted by least squares to
  `t = c + 2MNK / peak + K N e / b_operand_bandwidth`; `half = c * peak`.
- Links, fitted to `t = latency + bytes / bandwidth` (one peer) over
  all-gathers and reduce-scatters of 256 B to 1 MiB per peer next to tiny
  GEMMs: `collective` from the unfused ops (an instance's span less its
  GEMMs), `per_peer` and `ring` from the fused ops with 1 piece per rank
  (the span less the piece that waits on data).
- Launch overhead: what 3 more pieces per rank add to tiny fused ops (the
  median over both algorithms and both kinds), per piece.
- Overlap slowdown: a fused all-gather-matmul's GEMM pieces against the same
  GEMMs alone.

    scripts/bench/calibrate_cpu.py [--build build] [--out cpu.json]
                                   [--copies 8] [--repeat 4] [--ranks 2]
"""
import argparse
import json
import os
import tempfile

from loop_timing import instance_slices, loop_program, run_traced

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def fit(rows, ys):
    """Least squares y = sum_j c_j * row_j, for a few terms (normal
    equations, Gaussian elimination)."""
    n = len(rows[0])
    a = [[sum(r[i] * r[j] for r in rows) for j in range(n)] + [sum(r[i] * y for r, y in zip(rows, ys))]
         for i in range(n)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(n):
            if r != col:
                f = a[r][col] / a[col][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col])]
    return [a[i][n] / a[i][i] for i in range(n)]


def steady_slices(args, tmp, grid, fn_args, make_instance):
    """Slices of --copies instances run back to back in a loop of --repeat
    trips (loop_timing), grouped by (rank, trip, instance)."""
    instances = [make_instance(i) for i in range(args.copies)]
    text, line_of = loop_program(grid, fn_args, instances, args.repeat)
    path = os.path.join(tmp, "calibrate.mlir")
    with open(path, "w") as f:
        f.write(text)
    return instance_slices(run_traced(args.build, path, grid, tmp), line_of)


def element(dtype):
    return {"f8": "f8E4M3FN"}.get(dtype, dtype)


def matmul_instance(rows, n, k, dtype):
    """Instance i: rows x k (from row i of %a on) times k x n."""
    t = element(dtype)
    def make(i):
        a = f"tensor<{rows}x{k}x{t}>"
        out = "f32" if dtype == "f8" else t
        y = f"tensor<{rows}x{n}x{out}>"
        lines = [f"%a{i} = tensor.extract_slice %a[{i}, 0] [{rows}, {k}] [1, 1] : tensor<{rows + 64}x{k}x{t}> to {a}"]
        if dtype == "f8":
            # Scaled GEMMs take B as [N, K].
            lines.append(f"%y{i} = tp.scaled_matmul %a{i} scale %sa, %b scale %sb per_tensor"
                         f" : ({a}, tensor<f32>, tensor<{n}x{k}x{t}>, tensor<f32>) -> {y}")
        else:
            lines.append(f"%y{i} = tp.matmul %a{i}, %b : {a}, tensor<{k}x{n}x{t}> -> {y}")
        if out != "f32":  # the loop keeps an f32
            lines.append(f"%e{i} = tensor.extract %y{i}[%c0, %c0] : {y}")
            lines.append(f"%f{i} = arith.extf %e{i} : {t} to f32")
            lines.append(f"%z{i} = tensor.from_elements %f{i} : tensor<1xf32>")
            return lines, f"%z{i}", "tensor<1xf32>"
        return lines, f"%y{i}", y
    fn_args = [f"%a: tensor<{rows + 64}x{k}x{t}>", f"%b: tensor<{k}x{n}x{t}>"]
    if dtype == "f8":
        fn_args = [fn_args[0], f"%b: tensor<{n}x{k}x{t}>", "%sa: tensor<f32>", "%sb: tensor<f32>"]
    return fn_args, make


# (rows, n, k): row counts, FLOPs and B operand sizes varied apart, none of
# them a validation shape. A GEMM of few rows streams all of B for little
# work (6 rows run at a third of the peak here): that is the B operand term.
GEMM_SHAPES = [(r, n, k) for r in (6, 24, 96, 320) for (n, k) in
               ((96, 96), (384, 192), (192, 384), (640, 320), (320, 640), (896, 896))]


def gemm_rate(args, tmp, dtype):
    """GEMMs on --ranks ranks at once (the ranks share the cores, as in any
    run), fitted to t = c + 2MNK / peak + K N e / b_operand_bandwidth."""
    rows, times = [], []
    e = {"f32": 4, "f16": 2, "bf16": 2, "f8": 1}[dtype]
    for r, n, k in GEMM_SHAPES:
        fn_args, make = matmul_instance(r, n, k, dtype)
        groups = steady_slices(args, tmp, args.ranks, fn_args, make)
        per_instance = {}
        for (rank, trip, i), group in groups.items():
            t = sum(ev["dur"] for ev in group if ev["cat"] == "gemm")
            per_instance[(trip, i)] = max(per_instance.get((trip, i), 0.0), t)
        rows.append([1.0, 2.0 * r * n * k, float(k * n * e)])
        times.append(min(per_instance.values()) * 1e-6)
    intercept, per_flop, per_byte = fit(rows, times)
    peak = 1.0 / per_flop
    return {"peak_flops": peak, "half_flops": max(0.0, intercept * peak),
            "b_operand_bandwidth": 1.0 / per_byte if per_byte > 0 else 1e15}


def candidate_instance(kind, r, n, k, attrs):
    """Instance i of an all-gather -> matmul ("ag") or matmul ->
    reduce-scatter ("rs") on 2 ranks with r rows per rank: unfused with
    attrs None, else fused with these attributes."""
    m = 2 * r
    rows = r if kind == "ag" else m
    x, w = f"tensor<{rows}x{k}xf32>", f"tensor<{k}x{n}xf32>"
    y = f"tensor<{m}x{n}xf32>" if kind == "ag" else f"tensor<{r}x{n}xf32>"
    def make(i):
        lines = [f"%x{i} = tensor.extract_slice %x[{i}, 0] [{rows}, {k}] [1, 1] : tensor<{rows + 64}x{k}xf32> to {x}"]
        if kind == "ag" and attrs is None:
            lines += [f"%g{i} = tp.all_gather %x{i} on @tp axes = [0] dim = 0 : {x} -> tensor<{m}x{k}xf32>",
                      f"%y{i} = tp.matmul %g{i}, %w : tensor<{m}x{k}xf32>, {w} -> {y}"]
        elif kind == "ag":
            lines.append(f"%y{i} = tp.all_gather_matmul %x{i}, [%w] on @tp axes = [0] dim = 0 {attrs} : ({x}, {w}) -> {y}")
        elif attrs is None:
            lines += [f"%p{i} = tp.matmul %x{i}, %w : {x}, {w} -> tensor<{m}x{n}xf32>",
                      f"%y{i} = tp.reduce_scatter %p{i} on @tp axes = [0] dim = 0 reduce = sum"
                      f" : tensor<{m}x{n}xf32> -> {y}"]
        else:
            lines.append(f"%y{i} = tp.matmul_reduce_scatter %x{i}, %w on @tp axes = [0] dim = 0 reduce = sum {attrs}"
                         f" : ({x}, {w}) -> {y}")
        return lines, f"%y{i}", y
    return [f"%x: tensor<{rows + 64}x{k}xf32>", f"%w: {w}"], make


def communication_time(args, tmp, kind, r, n, k, attrs):
    """What a candidate's run spends beyond GEMMs: per instance, the worst
    rank's span from its first to its last slice, less its GEMM slices
    (unfused: all of them; fused: the one piece that waits on data)."""
    fn_args, make = candidate_instance(kind, r, n, k, attrs)
    per_instance = {}
    for (rank, trip, i), group in steady_slices(args, tmp, 2, fn_args, make).items():
        span = max(e["ts"] + e["dur"] for e in group) - min(e["ts"] for e in group)
        gemms = [e["dur"] for e in group if e["cat"] == "gemm"]
        exposed = span - (sum(gemms) if attrs is None else max(gemms))
        per_instance[(trip, i)] = max(per_instance.get((trip, i), 0.0), exposed)
    return min(per_instance.values()) * 1e-6


# (rows per rank, n, k) whose GEMMs are small next to the data they move:
# 256 B to 1 MiB per peer, for an all-gather (r k) and a reduce-scatter (r n).
LINK_SHAPES = [(2, 8, 32), (8, 8, 128), (32, 8, 512), (128, 8, 512), (512, 8, 512)]


def link(args, tmp, attrs):
    """t = latency + bytes / bandwidth (one peer) over LINK_SHAPES, all-gathers
    and reduce-scatters alike: the unfused collective ops with attrs None,
    else the fused ops with these attributes."""
    rows, times = [], []
    for r, n, k in LINK_SHAPES:
        rows += [[1.0, 4.0 * r * k]] * 2
        times.append(communication_time(args, tmp, "ag", r, n, k, attrs))
        # A reduce-scatter moves r x n: swapped, as many bytes as the gather.
        times.append(communication_time(args, tmp, "rs", r, k, n, attrs))
    latency, per_byte = fit(rows, times)
    return {"bandwidth": 1.0 / per_byte, "latency": max(0.0, latency)}


def fused_gemm_time(args, tmp, m, n, k, pipeline_attrs):
    """The GEMM time of one fused all-gather-matmul on 2 ranks (its pieces
    summed), or, with pipeline_attrs None, of the plain GEMM of its m/2 rows."""
    r = m // 2
    x, w = f"tensor<{r}x{k}xf32>", f"tensor<{k}x{n}xf32>"
    def make(i):
        lines = [f"%x{i} = tensor.extract_slice %x[{i}, 0] [{r}, {k}] [1, 1] : tensor<{r + 64}x{k}xf32> to {x}"]
        if pipeline_attrs is None:
            lines.append(f"%y{i} = tp.matmul %x{i}, %w : {x}, {w} -> tensor<{r}x{n}xf32>")
            return lines, f"%y{i}", f"tensor<{r}x{n}xf32>"
        lines.append(f"%y{i} = tp.all_gather_matmul %x{i}, [%w] on @tp axes = [0] dim = 0 {pipeline_attrs}"
                     f" : ({x}, {w}) -> tensor<{m}x{n}xf32>")
        return lines, f"%y{i}", f"tensor<{m}x{n}xf32>"
    groups = steady_slices(args, tmp, 2, [f"%x: tensor<{r + 64}x{k}xf32>", f"%w: {w}"], make)
    per_instance = {}
    for (rank, trip, i), group in groups.items():
        t = sum(ev["dur"] for ev in group if ev["cat"] == "gemm")
        per_instance[(trip, i)] = max(per_instance.get((trip, i), 0.0), t)
    return min(per_instance.values()) * 1e-6


def overlap_slowdown(args, tmp):
    """A fused op's GEMM pieces (data moving meanwhile) against the same
    GEMMs alone: 2 pieces of m/2 rows."""
    attrs = "{algorithm = #tp.algorithm<per_peer>, chunks = 1 : i64}"
    fused = fused_gemm_time(args, tmp, 512, 512, 512, attrs)
    alone = fused_gemm_time(args, tmp, 512, 512, 512, None)
    return max(0.0, fused / (2 * alone) - 1.0)


def piece_launch(args, tmp):
    """What one more piece costs a fused op beyond its GEMM: tiny fused ops
    (8 rows per rank) with 4 pieces per rank against 1, both algorithms and
    both kinds; per_peer and ring on 2 ranks launch c messages (and c GEMMs
    per rank) for c pieces."""
    extra = []
    for algorithm in ("per_peer", "ring"):
        for kind in ("ag", "rs"):
            t = {}
            for chunks in (1, 4):
                attrs = f"{{algorithm = #tp.algorithm<{algorithm}>, chunks = {chunks} : i64}}"
                t[chunks] = communication_time(args, tmp, kind, 8, 16, 16, attrs)
            extra.append(max(0.0, t[4] - t[1]) / 3)
    return sorted(extra)[len(extra) // 2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--out", default="cpu.json")
    parser.add_argument("--repeat", type=int, default=4, help="trips of each timing loop")
    parser.add_argument("--copies", type=int, default=8, help="instances per trip")
    parser.add_argument("--ranks", type=int, default=2,
                        help="ranks running each GEMM at once (the validation's)")
    args = parser.parse_args()
    # Instance i reads its input from row i on, and every input has 64 rows
    # to spare.
    if not 1 <= args.copies <= 64 or args.repeat < 1:
        parser.error("--copies must be 1 to 64 and --repeat at least 1")
    with tempfile.TemporaryDirectory() as tmp:
        gemm = {dtype: gemm_rate(args, tmp, dtype) for dtype in ["f32", "f16", "bf16", "f8"]}
        links = {"collective": link(args, tmp, None)}
        for algorithm in ("per_peer", "ring"):
            links[algorithm] = link(args, tmp, f"{{algorithm = #tp.algorithm<{algorithm}>, chunks = 1 : i64}}")
        description = {
            "name": "cpu",
            "gemm": gemm,
            "links": links,
            "overlap_slowdown": overlap_slowdown(args, tmp),
            "launch_overhead": piece_launch(args, tmp),
        }
    with open(args.out, "w") as f:
        json.dump(description, f, indent=2)
        f.write("\n")
    print(json.dumps(description, indent=2))


if __name__ == "__main__":
    main()
