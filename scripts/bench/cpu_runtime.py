#!/usr/bin/env python3
"""Benchmark (not a test) of the CPU runtime, on this machine:

1. tp-run executing one large f32 tp.matmul vs the BLAS called directly
   (tp-bench-gemm): the GEMM slice of tp-run's trace against cblas_sgemm.
2. The fused schedules vs the unfused ops on N ranks (threads, or with
   --transport mpi one MPI process per rank): the time from a rank's first to
   its last slice, worst rank, best of --repeat runs.

    scripts/bench/cpu_runtime.py [--build build] [--size 1536] [--ranks 4]
                                 [--transport loopback|mpi]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


TRANSPORT = "loopback"


def tp_run(build, path, ranks, extra, trace):
    cmd = [os.path.join(build, "bin", "tp-run"), path, "--ranks", str(ranks), "--trace", trace,
           "--transport", TRANSPORT] + extra
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    # Processes write one trace per rank (T.rankR.json).
    files = [trace] if TRANSPORT == "loopback" or ranks == 1 else \
        [trace.replace(".json", f".rank{r}.json") for r in range(ranks)]
    events = []
    for name in files:
        with open(name) as f:
            events += [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    return events


def span_us(events):
    """Worst rank's time from its first to its last slice."""
    per_rank = {}
    for e in events:
        start, end = e["ts"], e["ts"] + e["dur"]
        lo, hi = per_rank.get(e["pid"], (start, end))
        per_rank[e["pid"]] = (min(lo, start), max(hi, end))
    return max(hi - lo for lo, hi in per_rank.values())


def best(repeat, fn):
    return min(fn() for _ in range(repeat))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--size", type=int, default=1536)
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--transport", choices=["loopback", "mpi"], default="loopback",
                        help="ranks as threads, or as MPI processes (section 2)")
    args = parser.parse_args()
    n, g = args.size, args.ranks

    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "t.json")
        # 1. One GEMM: tp-run vs cblas_sgemm.
        path = os.path.join(tmp, "gemm.mlir")
        with open(path, "w") as f:
            f.write(f"func.func @gemm(%a: tensor<{n}x{n}xf32>, %b: tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32> {{\n"
                    f"  %c = tp.matmul %a, %b : tensor<{n}x{n}xf32>, tensor<{n}x{n}xf32> -> tensor<{n}x{n}xf32>\n"
                    f"  return %c : tensor<{n}x{n}xf32>\n}}\n")
        run_us = best(args.repeat, lambda: next(e["dur"] for e in tp_run(args.build, path, 1, [], trace)
                                                if e["name"] == "matmul"))
        out = subprocess.run([os.path.join(args.build, "bin", "tp-bench-gemm"), str(n), str(n), str(n),
                              str(args.repeat)], check=True, stdout=subprocess.PIPE, text=True).stdout
        blas_us = float(re.search(r"best_us=(\S+)", out).group(1))
        print(f"gemm {n}x{n}x{n} f32: tp-run {run_us / 1e3:.1f} ms, BLAS {blas_us / 1e3:.1f} ms, "
              f"ratio {run_us / blas_us:.3f}")

        # 2. Fused vs unfused on g ranks.
        global TRANSPORT
        TRANSPORT = args.transport
        m, k = n // g, n
        cases = {
            "all_gather -> matmul": f"""shard.grid @tp(shape = {g})
func.func @ag(%x: tensor<{m}x{k}xf32>, %w: tensor<{k}x{n}xf32>) -> tensor<{n}x{n}xf32> {{
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : tensor<{m}x{k}xf32> -> tensor<{n}x{k}xf32>
  %y = tp.matmul %g, %w : tensor<{n}x{k}xf32>, tensor<{k}x{n}xf32> -> tensor<{n}x{n}xf32>
  return %y : tensor<{n}x{n}xf32>
}}
""",
            "matmul -> reduce_scatter": f"""shard.grid @tp(shape = {g})
func.func @rs(%h: tensor<{n}x{k}xf32>, %w: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %p = tp.matmul %h, %w : tensor<{n}x{k}xf32>, tensor<{k}x{n}xf32> -> tensor<{n}x{n}xf32>
  %y = tp.reduce_scatter %p on @tp axes = [0] dim = 0 reduce = sum : tensor<{n}x{n}xf32> -> tensor<{m}x{n}xf32>
  return %y : tensor<{m}x{n}xf32>
}}
""",
        }
        print(f"{'pattern':<26} {'unfused ms':>10} {'per_peer ms':>11} {'ring ms':>8} {'per_peer x':>10}")
        for name, text in cases.items():
            path = os.path.join(tmp, "layer.mlir")
            with open(path, "w") as f:
                f.write(text)
            unfused = best(args.repeat, lambda: span_us(tp_run(args.build, path, g, [], trace)))
            times = {}
            for algorithm in ("per_peer", "ring"):
                pipeline = f"tp-async-tp{{algorithm={algorithm} chunks=1}}"
                times[algorithm] = best(args.repeat, lambda: span_us(
                    tp_run(args.build, path, g, ["--pipeline", pipeline], trace)))
            print(f"{name:<26} {unfused / 1e3:>10.1f} {times['per_peer'] / 1e3:>11.1f} "
                  f"{times['ring'] / 1e3:>8.1f} {unfused / times['per_peer']:>10.2f}")
    how = "threads" if args.transport == "loopback" else "MPI processes"
    print(f"({os.cpu_count()} cores; {g} ranks ({how}) share them)")


if __name__ == "__main__":
    sys.exit(main())
