#!/usr/bin/env python3
"""Benchmark (not a test): JIT compile time, and the Llama step's memory,
against depth.

- chained MLP blocks (gen_mlp_chain.py, 4 ranks, fused), written out block
  by block and as one scf.for over stacked weights;
- the Llama training step of examples/llama (forward, loss and backward,
  8 ranks), partitioned by upstream MLIR and fused with sequence
  parallelism, at several depths: unrolled (mlir-opt partitions it), and
  as one loop over stacked weights, with the residual stream replicated
  or split on the tokens (tp-opt partitions it: upstream's passes with
  tp's model for the loop).

The time is tp-run's "compile" trace slice: lowering plus LLVM. A busy
machine moves it by a fifth; the CPU seconds of the whole run (parsing, the
pipeline, compiling and two steps) are steadier. The memory
is the largest rank's peak of compiled-code buffers in a step (tp-run
--steps): the activations the backward keeps, and the temporaries. With
--before B, every row is also measured with B's tp-run (another build, e.g.
of an older commit), alternately, so that both columns see the same machine.

    /usr/bin/python3 scripts/bench/compile_depth.py [--build build]
        [--before OTHER_BUILD] [--chain 10 40 160] [--layers 1 2 4 8]
        [--looped-layers 4 20 80]
"""
import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples", "llama"))


def measure(tp_run, path, ranks, pipeline, tmp):
    """(compile ms, the largest rank's peak of compiled-code buffers in MiB,
    or None when that tp-run does not report it, the whole run's CPU
    seconds)."""
    trace = os.path.join(tmp, "trace.json")
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    output = subprocess.run([tp_run, path, "--ranks", str(ranks), "--pipeline", pipeline,
                             "--trace", trace, "--steps", "2"], check=True,
                            stdout=subprocess.PIPE, text=True).stdout
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    with open(trace) as f:
        events = json.load(f)
    events = events["traceEvents"] if isinstance(events, dict) else events
    peak = re.search(r"buffers at their peak .*?: ([0-9.]+) MiB", output)
    return (sum(e["dur"] for e in events if e.get("cat") == "compile") / 1e3,
            float(peak.group(1)) if peak else None, cpu)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--before", help="another build to measure alongside")
    parser.add_argument("--chain", type=int, nargs="+", default=[10, 40, 160])
    parser.add_argument("--layers", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--looped-layers", type=int, nargs="+", default=[4, 20, 80])
    parser.add_argument("--mlir-opt", default="mlir-opt-22")
    args = parser.parse_args()
    builds = ([args.before] if args.before else []) + [args.build]
    runs = [os.path.join(b, "bin", "tp-run") for b in builds]
    names = (["before", "after"] if args.before else ["this build"])
    gen = os.path.join(ROOT, "scripts", "bench", "gen_mlp_chain.py")

    def ms(values):
        return "  ".join(f"{v[0]:>10.0f}" for v in values)

    with tempfile.TemporaryDirectory() as tmp:
        header = "  ".join(f"{n:>10}" for n in names)
        print(f"MLP blocks (4 ranks): compile ms\n{'blocks':>8}  {'form':<9}  {header}")
        for n in args.chain:
            for looped in (False, True):
                path = os.path.join(tmp, "chain.mlir")
                with open(path, "w") as f:
                    subprocess.run([sys.executable, gen, str(n), "--ranks", "4"]
                                   + (["--looped"] if looped else []), stdout=f, check=True)
                row = [measure(r, path, 4, "tp-async-tp-pipeline", tmp) for r in runs]
                print(f"{n:>8}  {'looped' if looped else 'unrolled':<9}  {ms(row)}")

        from llama import Config, LoopedStep, build_step

        def llama_row(label, layers, step, partitioner):
            source, partitioned = (os.path.join(tmp, "step.mlir"),
                                   os.path.join(tmp, "partitioned.mlir"))
            with open(source, "w") as f:
                f.write(step.text())
            subprocess.run([partitioner, source, "--pass-pipeline=builtin.module(func.func("
                            "sharding-propagation,sharding-propagation,shard-partition,"
                            "canonicalize,cse))", "-o", partitioned], check=True)
            row = [measure(r, partitioned, 8, "tp-async-tp-pipeline{sequence-parallel}", tmp)
                   for r in runs]
            mib = row[-1][1]
            cpu = "  ".join(f"{v[2]:>12.2f}" for v in row)
            print(f"{layers:>8}  {label:<11}  {ms(row)}  {mib:>9.2f}  {mib / layers:>9.2f}  {cpu}")

        print(f"\nLlama step (8 ranks): compile ms, then the largest rank's peak "
              f"of compiled-code buffers\n{'layers':>8}  {'form':<11}  {header}  "
              f"{'peak MiB':>9}  {'MiB/layer':>9}  "
              + "  ".join(f"{n + ' CPU s':>12}" for n in names))
        for layers in args.layers:
            llama_row("unrolled", layers, build_step(Config(layers=layers), "f32", 8),
                      args.mlir_opt)
        tp_opt = os.path.join(args.build, "bin", "tp-opt")
        for layers in args.looped_layers:
            for sequence_parallel in (False, True):
                step = LoopedStep(Config(layers=layers), "f32", 8, sequence_parallel)
                llama_row("looped, SP" if sequence_parallel else "looped", layers, step,
                          tp_opt)


if __name__ == "__main__":
    main()
