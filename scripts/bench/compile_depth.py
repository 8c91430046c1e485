#!/usr/bin/env python3
"""Benchmark (not a test): JIT compile time, and the Llama step's memory,
against depth.

- chained MLP blocks (gen_mlp_chain.py, 4 ranks, fused), written out block
  by block and as one scf.for over stacked weights;
- the Llama training step of examples/llama (forward, loss and backward,
  8 ranks), partitioned by upstream MLIR and fused with sequence
  parallelism, at several depths.

The time is tp-run's "compile" trace slice: lowering plus LLVM. The memory
is the largest rank's peak of compiled-code buffers in a step (tp-run
--steps): the activations the backward keeps, and the temporaries.

    /usr/bin/python3 scripts/bench/compile_depth.py [--build build]
        [--chain 10 40 160] [--layers 1 2 4 8]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples", "llama"))


def measure(tp_run, path, ranks, pipeline, tmp):
    """(compile ms, the largest rank's peak of compiled-code buffers in MiB)."""
    trace = os.path.join(tmp, "trace.json")
    output = subprocess.run([tp_run, path, "--ranks", str(ranks), "--pipeline", pipeline,
                             "--trace", trace, "--steps", "2"], check=True,
                            stdout=subprocess.PIPE, text=True).stdout
    with open(trace) as f:
        events = json.load(f)
    events = events["traceEvents"] if isinstance(events, dict) else events
    peak = re.search(r"buffers at their peak .*?: ([0-9.]+) MiB", output)
    return (sum(e["dur"] for e in events if e.get("cat") == "compile") / 1e3,
            float(peak.group(1)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--chain", type=int, nargs="+", default=[10, 40, 160])
    parser.add_argument("--layers", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--mlir-opt", default="mlir-opt-22")
    args = parser.parse_args()
    tp_run = os.path.join(args.build, "bin", "tp-run")
    gen = os.path.join(ROOT, "scripts", "bench", "gen_mlp_chain.py")

    with tempfile.TemporaryDirectory() as tmp:
        print("MLP blocks (4 ranks)   unrolled ms   looped ms")
        for n in args.chain:
            row = []
            for looped in (False, True):
                path = os.path.join(tmp, "chain.mlir")
                with open(path, "w") as f:
                    subprocess.run([sys.executable, gen, str(n), "--ranks", "4"]
                                   + (["--looped"] if looped else []), stdout=f, check=True)
                row.append(measure(tp_run, path, 4, "tp-async-tp-pipeline", tmp)[0])
            print(f"{n:>21}   {row[0]:>11.0f}   {row[1]:>9.0f}")

        from llama import Config, build_step
        print("\nLlama step (8 ranks, unrolled)   compile ms   ms per layer   peak MiB   "
              "MiB per layer")
        for layers in args.layers:
            step = build_step(Config(layers=layers), "f32", 8)
            source, partitioned = (os.path.join(tmp, "step.mlir"),
                                   os.path.join(tmp, "partitioned.mlir"))
            with open(source, "w") as f:
                f.write(step.text())
            subprocess.run([args.mlir_opt, source, "--pass-pipeline=builtin.module(func.func("
                            "sharding-propagation,sharding-propagation,shard-partition,"
                            "canonicalize,cse))", "-o", partitioned], check=True)
            ms, mib = measure(tp_run, partitioned, 8, "tp-async-tp-pipeline{sequence-parallel}",
                              tmp)
            print(f"{layers:>23} layers   {ms:>10.0f}   {ms / layers:>12.0f}   {mib:>8.2f}   "
                  f"{mib / layers:>13.2f}")


if __name__ == "__main__":
    main()
