#!/usr/bin/env python3
"""Benchmark (not a test) of compiled execution, on this machine:

1. Glue throughput: tp-run's compiled code against numpy doing the same work
   in the same run of this script (element-wise tanh * y + x; a LayerNorm;
   a row softmax; all f32, --size x --size). tp-run's time is the best
   step's "compiled code" slice of its trace (one rank, --repeat steps);
   numpy's the best of --repeat calls.
2. JIT compile time of the bundled example (lowering plus LLVM at -O2), from
   the trace's "compile" slice.
3. The trace of examples/seqpar_mlp.mlir, fused, on 4 ranks: rank 0's
   slices in order, so the glue between the fused ops is visible.

    /usr/bin/python3 scripts/bench/compiled_glue.py [--build build] [--size 2048]

Needs numpy (Debian's python3-numpy).
"""
import argparse
import json
import os
import subprocess
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PROGRAMS = {
    "tanh(x) * y + x": ("""
func.func @glue(%x: tensor<NxNxf32>, %y: tensor<NxNxf32>) -> tensor<NxNxf32> {
  %t = math.tanh %x : tensor<NxNxf32>
  %m = arith.mulf %t, %y : tensor<NxNxf32>
  %a = arith.addf %m, %x : tensor<NxNxf32>
  return %a : tensor<NxNxf32>
}""", lambda x, y: np.tanh(x) * y + x),
    "layernorm rows": ("""
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @glue(%x: tensor<NxNxf32>, %y: tensor<NxNxf32>) -> tensor<NxNxf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant N.0 : f32
  %eps = arith.constant 1.0e-05 : f32
  %e = tensor.empty() : tensor<Nxf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<Nxf32>) -> tensor<Nxf32>
  %sum = linalg.reduce ins(%x : tensor<NxNxf32>) outs(%acc : tensor<Nxf32>) dimensions = [1]
    (%a: f32, %b: f32) { %c = arith.addf %a, %b : f32
      linalg.yield %c : f32 }
  %e2 = tensor.empty() : tensor<NxNxf32>
  %cen = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<NxNxf32>, tensor<Nxf32>) outs(%e2 : tensor<NxNxf32>) {
    ^bb0(%v: f32, %s: f32, %o: f32):
      %m = arith.divf %s, %n : f32
      %d = arith.subf %v, %m : f32
      linalg.yield %d : f32 } -> tensor<NxNxf32>
  %sq = arith.mulf %cen, %cen : tensor<NxNxf32>
  %ss = linalg.reduce ins(%sq : tensor<NxNxf32>) outs(%acc : tensor<Nxf32>) dimensions = [1]
    (%a: f32, %b: f32) { %c = arith.addf %a, %b : f32
      linalg.yield %c : f32 }
  %out = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%cen, %ss : tensor<NxNxf32>, tensor<Nxf32>) outs(%e2 : tensor<NxNxf32>) {
    ^bb0(%v: f32, %s: f32, %o: f32):
      %m = arith.divf %s, %n : f32
      %w = arith.addf %m, %eps : f32
      %r = math.rsqrt %w : f32
      %z = arith.mulf %v, %r : f32
      linalg.yield %z : f32 } -> tensor<NxNxf32>
  return %out : tensor<NxNxf32>
}""", lambda x, y: (lambda c: c / np.sqrt((c * c).mean(1, keepdims=True) + 1e-5))(
        x - x.mean(1, keepdims=True))),
    "softmax rows": ("""
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @glue(%x: tensor<NxNxf32>, %y: tensor<NxNxf32>) -> tensor<NxNxf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<Nxf32>
  %acc0 = linalg.fill ins(%ninf : f32) outs(%e : tensor<Nxf32>) -> tensor<Nxf32>
  %mx = linalg.reduce ins(%x : tensor<NxNxf32>) outs(%acc0 : tensor<Nxf32>) dimensions = [1]
    (%a: f32, %b: f32) { %c = arith.maximumf %a, %b : f32
      linalg.yield %c : f32 }
  %e2 = tensor.empty() : tensor<NxNxf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mx : tensor<NxNxf32>, tensor<Nxf32>) outs(%e2 : tensor<NxNxf32>) {
    ^bb0(%v: f32, %m: f32, %o: f32):
      %d = arith.subf %v, %m : f32
      %x2 = math.exp %d : f32
      linalg.yield %x2 : f32 } -> tensor<NxNxf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<Nxf32>) -> tensor<Nxf32>
  %sum = linalg.reduce ins(%ex : tensor<NxNxf32>) outs(%acc : tensor<Nxf32>) dimensions = [1]
    (%a: f32, %b: f32) { %c = arith.addf %a, %b : f32
      linalg.yield %c : f32 }
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sum : tensor<NxNxf32>, tensor<Nxf32>) outs(%e2 : tensor<NxNxf32>) {
    ^bb0(%v: f32, %s: f32, %o: f32):
      %q = arith.divf %v, %s : f32
      linalg.yield %q : f32 } -> tensor<NxNxf32>
  return %p : tensor<NxNxf32>
}""", lambda x, y: (lambda e: e / e.sum(1, keepdims=True))(np.exp(x - x.max(1, keepdims=True)))),
}


def trace_slices(build, path, ranks, extra, tmp):
    trace = os.path.join(tmp, "trace.json")
    subprocess.run([os.path.join(build, "bin", "tp-run"), path, "--ranks", str(ranks),
                    "--trace", trace] + extra, check=True, stdout=subprocess.DEVNULL)
    with open(trace) as f:
        return [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]


def best_numpy_ms(fn, x, y, repeat):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn(x, y)
        best = min(best, (time.perf_counter() - start) * 1e3)
    return best


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--size", type=int, default=2048)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    n = args.size
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    y = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        print(f"1. glue, f32 {n}x{n}, one rank (compiled: best of {args.repeat} steps; "
              f"numpy: best of {args.repeat} calls)")
        print(f"   {'program':<18} {'compiled ms':>12} {'numpy ms':>10} {'ratio':>7}")
        for name, (text, fn) in PROGRAMS.items():
            path = os.path.join(tmp, "glue.mlir")
            with open(path, "w") as f:
                f.write(text.replace("N.0", f"{float(n)}").replace("N", str(n)))
            # One run of --repeat steps: these programs have no tp op, so each
            # step is one "compiled code" slice. The first step also pays for
            # the pages of fresh buffers, as numpy's first call would.
            compiled = min(e["dur"] for e in trace_slices(
                args.build, path, 1, ["--steps", str(args.repeat)], tmp)
                if e.get("cat") == "glue") / 1e3
            reference = best_numpy_ms(fn, x, y, args.repeat)
            print(f"   {name:<18} {compiled:12.1f} {reference:10.1f} {compiled / reference:7.2f}")

        example = os.path.join(ROOT, "examples", "seqpar_mlp.mlir")
        fused = ["--pipeline", "tp-lower-linear,cse,tp-async-tp"]
        events = trace_slices(args.build, example, 4, fused, tmp)
        compile_ms = [e["dur"] / 1e3 for e in events if e.get("cat") == "compile"]
        print(f"\n2. JIT compile of examples/seqpar_mlp.mlir (fused): {compile_ms[0]:.0f} ms")

        print("\n3. examples/seqpar_mlp.mlir fused on 4 ranks: rank 0's slices (us)")
        rank0 = sorted((e for e in events if e["pid"] == 0 and e.get("cat") != "compile"),
                       key=lambda e: e["ts"])
        origin = rank0[0]["ts"]
        for e in rank0:
            if e.get("cat") == "glue" or e["dur"] > 50:
                print(f"   {e['ts'] - origin:9.0f} +{e['dur']:8.0f}  {e['name']}")


if __name__ == "__main__":
    main()
