#!/usr/bin/env python3
"""Per-op time of a candidate run back to back (a benchmark, not a test).

Runs `--copies` independent instances of all-gather -> matmul (`ag`) or
matmul -> reduce-scatter (`rs`) on 2 thread ranks, f32, unfused or under a
fusing pipeline, and prints the whole trace span (first to last GEMM or
transfer slice, worst rank) divided by the instances, best of --repeat runs.
Unlike cost_model.py's per-instance spans, this counts every cost of an op:
its rendezvous, starting its communication, allocating its result.

    scripts/bench/op_overhead.py ag 64 64 64 [--pipeline 'tp-async-tp{chunks=4}']
                                 [--copies 32] [--repeat 5] [--build build]
"""
import argparse
import json
import os
import subprocess
import tempfile

from cost_model import ROOT, program


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kind", choices=["ag", "rs"])
    parser.add_argument("m", type=int)
    parser.add_argument("n", type=int)
    parser.add_argument("k", type=int)
    parser.add_argument("--pipeline", default="tp-async-tp{algorithm=per_peer chunks=1}",
                        help="'cse' runs the ops unfused")
    parser.add_argument("--copies", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = parser.parse_args()
    best = float("inf")
    with tempfile.TemporaryDirectory() as tmp:
        path, trace = os.path.join(tmp, "p.mlir"), os.path.join(tmp, "t.json")
        with open(path, "w") as f:
            f.write(program(args.kind, args.m, args.n, args.k, args.copies))
        for _ in range(args.repeat):
            subprocess.run([os.path.join(args.build, "bin", "tp-run"), path, "--ranks", "2",
                            "--trace", trace, "--pipeline", args.pipeline],
                           check=True, stdout=subprocess.DEVNULL)
            with open(trace) as f:
                events = [e for e in json.load(f)["traceEvents"]
                          if e.get("ph") == "X" and e.get("cat") in ("gemm", "comm")]
            spans = {}
            for e in events:
                lo, hi = spans.get(e["pid"], (e["ts"], e["ts"] + e["dur"]))
                spans[e["pid"]] = (min(lo, e["ts"]), max(hi, e["ts"] + e["dur"]))
            best = min(best, max(hi - lo for lo, hi in spans.values()) / args.copies)
    print(f"{args.kind} {args.m}x{args.n}x{args.k} {args.pipeline}: {best:.1f} us per op "
          f"({args.copies} back to back, best of {args.repeat})")


if __name__ == "__main__":
    main()
