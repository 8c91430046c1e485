#!/usr/bin/env python3
"""Validates the cost model on the CPU backend (a benchmark, not a test).

For each shape (all-gather -> matmul and matmul -> reduce-scatter on 2
ranks, f32), measures the unfused ops and the fused op with every schedule
(per_peer and ring, 1, 2 and 4 pieces per rank, coalesced) in one tp-run: --copies
rounds of every point, each round in another order, in a loop of --repeat
trips (loop_timing.py: steady state, memory reused as in a training loop).
A point's time is the best over its instances of the worst rank's span from
the instance's first to its last GEMM or transfer slice. The model's
predictions for the same points come from tp-async-tp's remarks with
`target=DESCRIPTION` and the schedule forced. Prints a table per shape, then:

- the Spearman rank correlation of predicted and measured times (all points);
- how often the schedule the model picks (including "do not fuse") is within
  10% of the best measured one;
- the accuracy of the fuse / do-not-fuse decision.

    scripts/bench/cost_model.py --target cpu.json [--build build] [--repeat 8]
                                [--copies 8]
"""
import argparse
import os
import re
import subprocess
import tempfile

from loop_timing import best_by_instance, instance_times, loop_program, run_traced

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Coalesced on 2 ranks is the own shard, then the other one: one point.
SCHEDULES = [(a, c) for a in ("per_peer", "ring") for c in (1, 2, 4)] + [("coalesced", 1)]
G = 2


def instance(kind, m, n, k, i, schedule):
    """One instance of the candidate, reading %in from its row i on (a view:
    the instances differ, so CSE keeps them apart, without a copy or an
    input each): unfused ops, or the fused op with `schedule` written on it.
    Returns (lines, result, result type) and the input's shape."""
    rows, cols = (m // G, k) if kind == "ag" else (m, k)
    x = f"tensor<{rows}x{cols}xf32>"
    w = f"tensor<{k}x{n}xf32>"
    lines = [f"%in{i} = tensor.extract_slice %in[{i}, 0] [{rows}, {cols}] [1, 1]"
             f" : tensor<{rows}x{cols}xf32> to {x}"]
    attrs = "" if schedule == "unfused" else \
        f" {{algorithm = #tp.algorithm<{schedule[0]}>, chunks = {schedule[1]} : i64}}"
    if kind == "ag":
        gx, y = f"tensor<{m}x{k}xf32>", f"tensor<{m}x{n}xf32>"
        if schedule == "unfused":
            lines += [f"%g{i} = tp.all_gather %in{i} on @tp axes = [0] dim = 0 : {x} -> {gx}",
                      f"%y{i} = tp.matmul %g{i}, %w : {gx}, {w} -> {y}"]
        else:
            lines += [f"%y{i} = tp.all_gather_matmul %in{i}, [%w] on @tp axes = [0] dim = 0{attrs} : ({x}, {w}) -> {y}"]
    else:
        p, y = f"tensor<{m}x{n}xf32>", f"tensor<{m // G}x{n}xf32>"
        if schedule == "unfused":
            lines += [f"%p{i} = tp.matmul %in{i}, %w : {x}, {w} -> {p}",
                      f"%y{i} = tp.reduce_scatter %p{i} on @tp axes = [0] dim = 0 reduce = sum : {p} -> {y}"]
        else:
            lines += [f"%y{i} = tp.matmul_reduce_scatter %in{i}, %w on @tp axes = [0] dim = 0 reduce = sum{attrs}"
                      f" : ({x}, {w}) -> {y}"]
    return (lines, f"%y{i}", y), (rows, cols)


def program(kind, m, n, k, plan, trips):
    """The instances of `plan` (schedules, in order) in a loop run `trips`
    times (loop_timing.loop_program)."""
    instances = []
    for i, schedule in enumerate(plan):
        inst, (rows, cols) = instance(kind, m, n, k, i, schedule)
        instances.append(inst)
    whole = f"tensor<{rows + len(plan)}x{cols}xf32>"
    for lines, _, _ in instances:
        lines[0] = lines[0].replace(f"tensor<{rows}x{cols}xf32> to", f"{whole} to")
    return loop_program(G, [f"%in: {whole}", f"%w: tensor<{k}x{n}xf32>"], instances, trips)


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
    parser.add_argument("--repeat", type=int, default=8, help="trips of the timing loop")
    parser.add_argument("--copies", type=int, default=8,
                        help="rounds of every point in one trip")
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
    keys = ["unfused"] + SCHEDULES
    with tempfile.TemporaryDirectory() as tmp:
        for kind, m, n, k in shapes:
            predicted = {}
            single = os.path.join(tmp, "p.mlir")
            with open(single, "w") as f:
                f.write(program(kind, m, n, k, ["unfused"], 1)[0])
            for schedule in SCHEDULES:
                predicted["unfused"], predicted[schedule] = predict(args.build, single, args.target, schedule)
            # Every point of the shape in one run: --copies rounds of every
            # point, each round in another order, so a slow moment of the
            # machine, or a place in the loop, lands on every point alike.
            plan = []
            for r in range(args.copies):
                plan += keys[r % len(keys):] + keys[:r % len(keys)]
            text, line_of = program(kind, m, n, k, plan, args.repeat)
            timed = os.path.join(tmp, "timed.mlir")
            with open(timed, "w") as f:
                f.write(text)
            times = instance_times(run_traced(args.build, timed, G, tmp), line_of)
            measured = best_by_instance(times, lambda i: plan[i])
            points = {key: (predicted[key], measured[key]) for key in keys}
            tag = f"{kind} {m}x{n}x{k}"
            for key, (p, meas) in points.items():
                name = key if key == "unfused" else f"{key[0]}/{key[1]}"
                print(f"{tag:>22} {name:>12} {p:>10.1f} {meas:>10.1f}", flush=True)
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
