#!/usr/bin/env python3
"""Validates the cost model on the CPU backend (a benchmark, not a test).

For each shape (all-gather -> matmul and matmul -> reduce-scatter on 2
ranks, f32), measures the unfused program and the fused one with every
schedule (per_peer and ring, 1, 2 and 4 pieces per rank): the worst rank's
time from its first to its last traced slice of one instance of the
candidate, best over --copies instances run back to back and --repeat rounds
(each round measures every point of the shape once). The model's
predictions for the same points come from tp-async-tp's remarks with
`target=DESCRIPTION` and the schedule forced. Prints a table per shape, then:

- the Spearman rank correlation of predicted and measured times (all points);
- how often the schedule the model picks (including "do not fuse") is within
  10% of the best measured one;
- the accuracy of the fuse / do-not-fuse decision.

    scripts/bench/cost_model.py --target cpu.json [--build build] [--repeat 3]
                                [--copies 4]
"""
import argparse
import json
import os
import re
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEDULES = [(a, c) for a in ("per_peer", "ring") for c in (1, 2, 4)]
G = 2


def program(kind, m, n, k, copies=1):
    """`copies` independent instances of the candidate (each on its own input,
    so CSE keeps them apart), run back to back in one call."""
    args, body, results, types = [], [], [], []
    for i in range(copies):
        if kind == "ag":
            x, gx, w, y = f"tensor<{m // G}x{k}xf32>", f"tensor<{m}x{k}xf32>", f"tensor<{k}x{n}xf32>", f"tensor<{m}x{n}xf32>"
            args.append(f"%x{i}: {x}")
            body.append(f"  %g{i} = tp.all_gather %x{i} on @tp axes = [0] dim = 0 : {x} -> {gx}\n"
                        f"  %y{i} = tp.matmul %g{i}, %w : {gx}, {w} -> {y}\n")
        else:
            h, w, p, y = f"tensor<{m}x{k}xf32>", f"tensor<{k}x{n}xf32>", f"tensor<{m}x{n}xf32>", f"tensor<{m // G}x{n}xf32>"
            args.append(f"%h{i}: {h}")
            body.append(f"  %p{i} = tp.matmul %h{i}, %w : {h}, {w} -> {p}\n"
                        f"  %y{i} = tp.reduce_scatter %p{i} on @tp axes = [0] dim = 0 reduce = sum : {p} -> {y}\n")
        results.append(f"%y{i}")
        types.append(y)
    return (f"shard.grid @tp(shape = {G})\nfunc.func @f({', '.join(args)}, %w: {w}) -> ({', '.join(types)}) {{\n"
            + "".join(body) + f"  return {', '.join(results)} : {', '.join(types)}\n}}\n")


def measure_once(build, path, pipeline, tmp, first_op):
    """Per instance of the candidate: the worst rank's time from its first to
    its last traced GEMM or transfer slice. An instance starts at the glue
    slice traced before its first op (`first_op`, fused or not); the unfused
    ops' own glue in between is part of the instance."""
    trace = os.path.join(tmp, "t.json")
    subprocess.run([os.path.join(build, "bin", "tp-run"), path, "--ranks", str(G), "--trace", trace,
                    "--pipeline", pipeline], check=True, stdout=subprocess.DEVNULL)
    with open(trace) as f:
        events = sorted((e for e in json.load(f)["traceEvents"]
                         if e.get("ph") == "X" and e.get("cat") in ("gemm", "comm", "glue")),
                        key=lambda e: e["ts"])
    spans = {}  # (rank, instance) -> (first, last)
    instance = {}
    for e in events:
        rank = e["pid"]
        if e["cat"] == "glue":
            if f"before '{first_op}" in e["name"]:
                instance[rank] = instance.get(rank, -1) + 1
            continue
        key = (rank, instance.get(rank, 0))
        lo, hi = spans.get(key, (e["ts"], e["ts"] + e["dur"]))
        spans[key] = (min(lo, e["ts"]), max(hi, e["ts"] + e["dur"]))
    worst = {}
    for (rank, i), (lo, hi) in spans.items():
        worst[i] = max(worst.get(i, 0.0), hi - lo)
    return list(worst.values())


def predict(build, path, target, schedule):
    algorithm, chunks = schedule
    out = subprocess.run([os.path.join(build, "bin", "tp-opt"), path, "-o", os.devnull,
                          f"--tp-async-tp=emit-remarks=1 target={target} algorithm={algorithm} chunks={chunks}"],
                         check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    m = re.search(r"predicted unfused ([0-9.]+) us, fused ([0-9.]+) us", out)
    return float(m.group(1)), float(m.group(2))


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0.0] * len(values)
    for rank, i in enumerate(order):
        r[i] = rank
    return r


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    return cov / (sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb)) ** 0.5


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--target", required=True, help="target description (preset or JSON)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--copies", type=int, default=4,
                        help="instances of each candidate per run, timed together")
    args = parser.parse_args()
    if args.copies < 1 or args.repeat < 1:
        parser.error("--copies and --repeat must be at least 1")
    sizes = [(64, 64, 64), (128, 128, 128), (256, 256, 256), (512, 512, 512), (768, 768, 768),
             (256, 1024, 256), (1024, 256, 256), (256, 256, 1024), (512, 128, 1024), (1024, 512, 128),
             (128, 1024, 1024), (768, 256, 512), (1024, 1024, 256), (512, 768, 768), (64, 1024, 1024)]
    shapes = [(kind,) + s for kind in ("ag", "rs") for s in sizes]
    predicted_all, measured_all = [], []
    within = correct = 0
    print(f"{'shape':>22} {'schedule':>12} {'pred us':>10} {'meas us':>10}")
    with tempfile.TemporaryDirectory() as tmp:
        for kind, m, n, k in shapes:
            path = os.path.join(tmp, "p.mlir")
            with open(path, "w") as f:
                f.write(program(kind, m, n, k))
            timed = os.path.join(tmp, "timed.mlir")
            with open(timed, "w") as f:
                f.write(program(kind, m, n, k, args.copies))
            pipelines = {"unfused": "cse"}
            first_op = "tp.all_gather" if kind == "ag" else "tp.matmul"
            predicted = {}
            for schedule in SCHEDULES:
                unfused_pred, predicted[schedule] = predict(args.build, path, args.target, schedule)
                pipelines[schedule] = f"tp-async-tp{{algorithm={schedule[0]} chunks={schedule[1]}}}"
            predicted["unfused"] = unfused_pred
            # Round robin, best of --repeat: a slow moment of the machine
            # lands on every point of the shape alike.
            measured = {key: float("inf") for key in pipelines}
            for _ in range(args.repeat):
                for key, pipeline in pipelines.items():
                    measured[key] = min([measured[key]] + measure_once(args.build, timed, pipeline, tmp, first_op))
            points = {key: (predicted[key], measured[key]) for key in pipelines}
            tag = f"{kind} {m}x{n}x{k}"
            for key, (p, meas) in points.items():
                name = key if key == "unfused" else f"{key[0]}/{key[1]}"
                print(f"{tag:>22} {name:>12} {p:>10.1f} {meas:>10.1f}")
                predicted_all.append(p)
                measured_all.append(meas)
            chosen = min(points, key=lambda key: points[key][0])
            best_measured = min(v[1] for v in points.values())
            within += points[chosen][1] <= 1.1 * best_measured
            fuse_pred = chosen != "unfused"
            fuse_meas = min(v[1] for key, v in points.items() if key != "unfused") < points["unfused"][1]
            correct += fuse_pred == fuse_meas
    n = len(shapes)
    print(f"\nshapes: {n}, points: {len(predicted_all)}")
    print(f"rank correlation (Spearman), predicted vs measured: {spearman(predicted_all, measured_all):.3f}")
    print(f"chosen schedule within 10% of the best measured: {within} of {n} ({100 * within / n:.0f}%)")
    print(f"fuse / do-not-fuse decision correct: {correct} of {n} ({100 * correct / n:.0f}%)")


if __name__ == "__main__":
    main()
