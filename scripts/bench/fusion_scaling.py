#!/usr/bin/env python3
"""Benchmark (not a test): cost of the fusion pipeline on L chained
sequence-parallel MLP blocks, against a bare parse+print of the same file.

    scripts/bench/fusion_scaling.py [--tp-opt build/bin/tp-opt] [--layers 2000 20000]

Prints one row per L: parse+print and pipeline seconds (best of --repeat), their
ratio, and microseconds per layer. Fails if any collective is left unfused.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def best_of(repeat, cmd):
    best = None
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        elapsed = time.perf_counter() - start
        if proc.returncode != 0:
            sys.exit(f"command failed: {' '.join(cmd)}\n{proc.stderr}")
        best = elapsed if best is None else min(best, elapsed)
    return best, proc.stderr


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tp-opt", default=os.path.join(ROOT, "build", "bin", "tp-opt"))
    parser.add_argument("--layers", type=int, nargs="+", default=[2000, 5000, 10000, 20000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--pipeline",
                        default="--tp-import --canonicalize --cse --tp-async-tp=stats --cse",
                        help="tp-opt flags of the pipeline under test (default: the "
                             "passes of tp-async-tp-pipeline, with fusion counts)")
    args = parser.parse_args()

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for layers in args.layers:
            path = os.path.join(tmp, f"chain{layers}.mlir")
            with open(path, "w") as f:
                subprocess.run([sys.executable, os.path.join(HERE, "gen_mlp_chain.py"), str(layers)],
                               stdout=f, check=True)
            base, _ = best_of(args.repeat, [args.tp_opt, path, "-o", "/dev/null"])
            fused, log = best_of(args.repeat, [args.tp_opt, path, "-o", "/dev/null"] + args.pipeline.split())
            m = re.search(r"(\d+) all-gather-matmul.*?(\d+) matmul-reduce-scatter.*?(\d+) collectives left unfused", log)
            if not m or int(m.group(1)) != layers or int(m.group(2)) != layers or int(m.group(3)) != 0:
                sys.exit(f"L={layers}: not every collective fused:\n{log}")
            rows.append((layers, base, fused))

    print(f"{'L':>6} {'parse+print s':>14} {'pipeline s':>11} {'ratio':>6} {'us/layer':>9}")
    for layers, base, fused in rows:
        print(f"{layers:>6} {base:>14.3f} {fused:>11.3f} {fused / base:>6.2f} {1e6 * fused / layers:>9.1f}")
    first, last = rows[0], rows[-1]
    print(f"scaling L={first[0]}->{last[0]}: x{last[0] / first[0]:.1f} layers, "
          f"x{last[2] / first[2]:.2f} pipeline time")


if __name__ == "__main__":
    main()
