#!/usr/bin/env python3
"""Calibrates the cost model's target description on this machine's CPU
backend (ranks are threads) and writes it as JSON (docs/CostModel.md).

Every number comes from tp-run's trace of small programs, best of --repeat:
- GEMM rates per element type: the GEMM pieces of fused all-gather-matmuls
  on 2 ranks (the ranks share the cores, as in any run), where
  `t = (2MNK + half) / peak` is fitted by least squares (launches are
  counted separately); for f8, whole tp.scaled_matmul ops on --ranks ranks
  at once, whose intercept also holds the op's own overhead.
- Links: an all-gather on 2 ranks over sizes; `t = latency + bytes / bw`
  (one peer). Thread ranks share memory, so per_peer and ring get the same
  link.
- Overlap slowdown: the GEMM pieces of a fused all-gather-matmul against the
  same GEMM run alone. Launch overhead: the smallest GEMM piece of a fused
  op (a piece is launched inside the op, without an op's own overhead).

    scripts/bench/calibrate_cpu.py [--build build] [--out cpu.json] [--repeat 3]
                                   [--ranks 2]
"""
import argparse
import json
import os
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def slices(build, path, ranks, tmp, extra=()):
    trace = os.path.join(tmp, "trace.json")
    subprocess.run([os.path.join(build, "bin", "tp-run"), path, "--ranks", str(ranks),
                    "--trace", trace] + list(extra), check=True, stdout=subprocess.DEVNULL)
    with open(trace) as f:
        return [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]


def best(repeat, fn):
    return min(fn() for _ in range(repeat))


def fit_line(xs, ys):
    """Least squares y = a + b x."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - b * mx, b


def gemm_program(n, dtype):
    if dtype == "f8":
        t = f"tensor<{n}x{n}xf8E4M3FN>"
        return (f"func.func @g(%a: {t}, %sa: tensor<f32>, %b: {t}, %sb: tensor<f32>) -> tensor<{n}x{n}xf32> {{\n"
                f"  %y = tp.scaled_matmul %a scale %sa, %b scale %sb per_tensor : ({t}, tensor<f32>, {t}, tensor<f32>)"
                f" -> tensor<{n}x{n}xf32>\n  return %y : tensor<{n}x{n}xf32>\n}}\n")
    t = f"tensor<{n}x{n}x{dtype}>"
    return (f"func.func @g(%a: {t}, %b: {t}) -> {t} {{\n  %y = tp.matmul %a, %b : {t}, {t} -> {t}\n"
            f"  return %y : {t}\n}}\n")


def piece_rate(args, tmp, dtype):
    """GEMM rate from the pieces of fused all-gather-matmuls on 2 ranks: each
    piece is a GEMM launched inside the op, so the fit sees no per-op
    overhead (which the links' latency carries)."""
    points = []
    for n in [32, 64, 128, 256, 384, 512]:
        r = n // 2
        path = os.path.join(tmp, f"piece_{dtype}_{n}.mlir")
        x, gx, w, y = (f"tensor<{r}x{n}x{dtype}>", f"tensor<{n}x{n}x{dtype}>",
                       f"tensor<{n}x{n}x{dtype}>", f"tensor<{n}x{n}x{dtype}>")
        with open(path, "w") as f:
            f.write(f"shard.grid @tp(shape = 2)\nfunc.func @g(%x: {x}, %w: {w}) -> {y} {{\n"
                    f"  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : {x} -> {gx}\n"
                    f"  %y = tp.matmul %g, %w : {gx}, {w} -> {y}\n  return %y : {y}\n}}\n")
        # The fastest piece: a rank's first one also pays the BLAS threads'
        # wake-up, which no steady schedule does.
        t = best(args.repeat, lambda: min(
            e["dur"] for e in slices(args.build, path, 2, tmp,
                                     ["--pipeline", "tp-async-tp{algorithm=per_peer chunks=1}"])
            if e["cat"] == "gemm") * 1e-6)
        points.append((2.0 * r * n * n, t))
    intercept, slope = fit_line([p[0] for p in points[1:]], [p[1] for p in points[1:]])
    peak = 1.0 / slope
    return {"peak_flops": peak, "half_flops": max(0.0, intercept * peak)}


def gemm_rate(args, tmp, dtype):
    sizes = [16, 64, 128, 256, 384, 512]
    times = []
    for n in sizes:
        path = os.path.join(tmp, f"gemm_{dtype}_{n}.mlir")
        with open(path, "w") as f:
            f.write(gemm_program(n, dtype))
        def slowest_rank():
            per_rank = {}
            for e in slices(args.build, path, args.ranks, tmp):
                if e["cat"] == "gemm":
                    per_rank[e["pid"]] = per_rank.get(e["pid"], 0) + e["dur"]
            return max(per_rank.values()) * 1e-6
        times.append(best(args.repeat, slowest_rank))
    flops = [2.0 * n ** 3 for n in sizes]
    intercept, slope = fit_line(flops[1:], times[1:])
    peak = 1.0 / slope
    launch = times[0]
    half = max(0.0, (intercept - launch) * peak)
    return {"peak_flops": peak, "half_flops": half}, launch


def link(args, tmp):
    sizes = [1024, 16384, 131072, 524288, 1048576]  # f32 elements per rank
    times = []
    for n in sizes:
        path = os.path.join(tmp, f"ag_{n}.mlir")
        with open(path, "w") as f:
            f.write(f"shard.grid @tp(shape = 2)\nfunc.func @g(%x: tensor<{n}xf32>) -> tensor<{2 * n}xf32> {{\n"
                    f"  %y = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<{n}xf32> -> tensor<{2 * n}xf32>\n"
                    f"  return %y : tensor<{2 * n}xf32>\n}}\n")
        # The rank that waited longest: what the collective adds to a run.
        times.append(best(args.repeat, lambda: max(
            e["dur"] for e in slices(args.build, path, 2, tmp) if e["cat"] == "comm") * 1e-6))
    latency, per_byte = fit_line([4.0 * n for n in sizes], times)
    return {"bandwidth": 1.0 / per_byte, "latency": max(0.0, latency)}


def overlap_slowdown(args, tmp):
    m, k, n = 512, 512, 512
    path = os.path.join(tmp, "fused.mlir")
    with open(path, "w") as f:
        f.write(f"shard.grid @tp(shape = 2)\nfunc.func @g(%x: tensor<{m // 2}x{k}xf32>, %w: tensor<{k}x{n}xf32>)"
                f" -> tensor<{m}x{n}xf32> {{\n"
                f"  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<{m // 2}x{k}xf32> -> tensor<{m}x{k}xf32>\n"
                f"  %y = tp.matmul %g, %w : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32> -> tensor<{m}x{n}xf32>\n"
                f"  return %y : tensor<{m}x{n}xf32>\n}}\n")

    def gemm_time(pipeline):
        events = slices(args.build, path, 2, tmp, ["--pipeline", pipeline])
        per_rank = {}
        for e in events:
            if e["cat"] == "gemm":
                per_rank[e["pid"]] = per_rank.get(e["pid"], 0) + e["dur"]
        return max(per_rank.values())
    alone = best(args.repeat, lambda: gemm_time("cse"))
    fused = best(args.repeat, lambda: gemm_time("tp-async-tp{algorithm=per_peer chunks=1}"))
    return max(0.0, fused / alone - 1.0)


def piece_launch(args, tmp):
    path = os.path.join(tmp, "tiny.mlir")
    with open(path, "w") as f:
        f.write("shard.grid @tp(shape = 2)\nfunc.func @g(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>)"
                " -> tensor<16x8xf32> {\n"
                "  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<8x8xf32> -> tensor<16x8xf32>\n"
                "  %y = tp.matmul %g, %w : tensor<16x8xf32>, tensor<8x8xf32> -> tensor<16x8xf32>\n"
                "  return %y : tensor<16x8xf32>\n}\n")
    return best(args.repeat, lambda: min(
        e["dur"] for e in slices(args.build, path, 2, tmp,
                                 ["--pipeline", "tp-async-tp{algorithm=per_peer chunks=4}"])
        if e["cat"] == "gemm") * 1e-6)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--out", default="cpu.json")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--ranks", type=int, default=2,
                        help="ranks running each GEMM at once (the validation's)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        gemm = {dtype: piece_rate(args, tmp, dtype) for dtype in ["f32", "f16", "bf16"]}
        # Scaled GEMMs have no fused form to time pieces of here: op level.
        gemm["f8"], _ = gemm_rate(args, tmp, "f8")
        peer = link(args, tmp)
        description = {
            "name": "cpu",
            "gemm": gemm,
            "links": {"per_peer": peer, "ring": peer},
            "overlap_slowdown": overlap_slowdown(args, tmp),
            "launch_overhead": piece_launch(args, tmp),
        }
    with open(args.out, "w") as f:
        json.dump(description, f, indent=2)
        f.write("\n")
    print(json.dumps(description, indent=2))


if __name__ == "__main__":
    main()
