#!/usr/bin/env python3
"""The GPU cost model's GEMM terms against tp-gpu-bench --sweep.

`tp-gpu-bench --sweep FILE` times, on one GPU, the GEMM calls every schedule
makes for Llama-class layers at TP 8 (unfused; per_peer with 1, 2 and 4
pieces per rank, on one compute stream and on two ("per_peer:2:2");
coalesced with 1, 2 and 4 GEMMs for the remote shards), slowest rank first. For each of its rows this asks
`tp-opt --tp-async-tp{target=TARGET}` with that schedule forced for its
prediction of the same GEMMs (the unfused GEMM, or the fused schedule's
pieces: every SM, as with copy engines) and prints predicted against
measured, then:

- how many points are within 15%, the mean and worst error;
- for each layer and M, the schedule whose GEMMs the model ranks fastest
  against the one measured fastest.

With --write-target OUT it also fits the tile-and-wave model to the
measurements and writes a target description: each tile's efficiency
scaled by the median of predicted / measured over the compute-bound points
where the model picked that tile (unfused GEMMs and per_peer pieces on one
stream, whose GEMMs all have one size); where a tile comes out faster than the peak
allows, `sustained` rises instead. Everything else is TARGET's.

    gpu_sweep.py --measured sweep.csv [--target h100-nvlink]
                 [--tp-opt build/bin/tp-opt] [--write-target gpu.json]

A benchmark of the model, not a test: it runs nothing on a GPU itself.
"""
import argparse
import concurrent.futures
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading

from gpu_published import program  # the per-rank program of a point, 8 ranks

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

UNFUSED_GEMM = re.compile(
    r"unfused: collective [\d.]+ us \+ GEMM (?P<us>[\d.]+) us "
    r"\((?P<tiles>\d+) tiles of (?P<tm>\d+)x(?P<tn>\d+), (?P<waves>\d+) waves? "
    r"of [\d.]+ us(?P<memory>, memory-bound)?\)")
FUSED_GEMMS = re.compile(
    r"fused: (?:pieces|GEMMs) (?P<us>[\d.]+) us \+ transfers [\d.]+ us, "
    r"(?:each piece|the largest) (?P<rows>\d+) rows \((?P<tiles>\d+) tiles of "
    r"(?P<tm>\d+)x(?P<tn>\d+), (?P<waves>\d+) waves? of [\d.]+ us"
    r"(?P<memory>, memory-bound)?\)")


def remark(tp_opt, target, text, algorithm, chunks, tmp, streams=1):
    path = os.path.join(tmp, f"point{threading.get_ident()}.mlir")
    with open(path, "w") as f:
        f.write(text)
    options = (f"target={target} emit-remarks algorithm={algorithm} chunks={chunks}"
               f" streams={streams}")
    out = subprocess.run([tp_opt, path, f"--tp-async-tp={options}", "-o", os.devnull],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"gpu_sweep.py: tp-opt failed:\n{out.stderr}")
    return out.stderr


def predict(tp_opt, target, row, tmp):
    """(predicted us, tile (tm, tn) or None, memory-bound) for a CSV row."""
    gather = row["kind"] == "ag"
    text = program(gather, int(row["rows_per_rank"]), int(row["n"]), int(row["k"]), "bf16")
    if row["schedule"] == "unfused":
        m = UNFUSED_GEMM.search(remark(tp_opt, target, text, "per_peer", 1, tmp))
        if not m:
            sys.exit(f"gpu_sweep.py: no unfused GEMM in tp-opt's remark for {row}")
    else:
        algorithm, chunks, *streams = row["schedule"].split(":")
        m = FUSED_GEMMS.search(remark(tp_opt, target, text, algorithm, chunks, tmp,
                                      streams[0] if streams else 1))
        if not m:
            sys.exit(f"gpu_sweep.py: no fused GEMMs in tp-opt's remark for {row}")
    tile = (int(m.group("tm")), int(m.group("tn")))
    return float(m.group("us")), tile, bool(m.group("memory"))


def fit(base, points):
    """`base` (a target description) with its bf16 tiles' efficiencies and
    `sustained` fitted to `points`: (tile, predicted, measured)."""
    ratios = {}
    for tile, predicted, measured in points:
        ratios.setdefault(tile, []).append(predicted / measured)
    gpu = base["gpu"]
    kind = gpu["types"]["bf16"]
    tiles = kind.get("tiles") or gpu.get("tiles")
    fitted = []
    for rows, cols, efficiency in tiles:
        scale = statistics.median(ratios[(rows, cols)]) if (rows, cols) in ratios else 1.0
        fitted.append([rows, cols, efficiency * scale])
    top = max(e for _, _, e in fitted)
    if top > 1:
        gpu["sustained"] = min(1.0, gpu["sustained"] * top)
        fitted = [[r, c, e / top] for r, c, e in fitted]
    kind["tiles"] = [[r, c, round(e, 4)] for r, c, e in fitted]
    base["name"] = base["name"] + " (fitted by gpu_sweep.py)"
    return base, sorted(ratios)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--measured", required=True, help="tp-gpu-bench --sweep's CSV")
    parser.add_argument("--target", default="h100-nvlink")
    parser.add_argument("--tp-opt", default=os.path.join(ROOT, "build", "bin", "tp-opt"))
    parser.add_argument("--write-target", help="write the fitted description here")
    args = parser.parse_args()

    with open(args.measured) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"gpu_sweep.py: {args.measured} has no points")
    errors, fit_points, by_point = [], [], {}
    print(f"GEMMs of every schedule, predicted for '{args.target}' against measured\n")
    print("| layer | M | schedule | calls | predicted us | measured us | error | tile |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        predictions = pool.map(lambda row: predict(args.tp_opt, args.target, row, tmp), rows)
        for row, (predicted, tile, memory) in zip(rows, predictions):
            measured = float(row["us"])
            if measured <= 0:
                sys.exit(f"gpu_sweep.py: a measured time must be positive: {row}")
            error = 100 * (predicted - measured) / measured
            errors.append(abs(error))
            # One GEMM size, one after another: each call's time is the tile's.
            uniform = row["schedule"] == "unfused" or (
                row["schedule"].startswith("per_peer") and row["schedule"].count(":") == 1)
            if uniform and not memory:
                calls = int(row["calls"])
                fit_points.append((tile, predicted / calls, measured / calls))
            key = (row["layer"], int(row["m"]))
            by_point.setdefault(key, []).append((row["schedule"], predicted, measured))
            print(f"| {row['layer']} | {row['m']} | {row['schedule']} | {row['calls']} | "
                  f"{predicted:.1f} | {measured:.1f} | {error:+.1f}% | "
                  f"{tile[0]}x{tile[1]}{', memory-bound' if memory else ''} |")
    within = sum(e <= 15 for e in errors)
    print(f"\n{within} of {len(errors)} points within 15%; mean |error| "
          f"{statistics.mean(errors):.1f}%, worst {max(errors):.1f}%")
    agree = 0
    for key, options in by_point.items():
        fused = [o for o in options if o[0] != "unfused"]
        if not fused:
            continue
        best_predicted = min(fused, key=lambda o: o[1])
        best_measured = min(fused, key=lambda o: o[2])
        # Within 10% of the measured best counts as the right pick.
        agree += best_predicted[2] <= 1.1 * best_measured[2]
    print(f"the model's fastest schedule (GEMMs only) within 10% of the measured "
          f"fastest: {agree} of {len(by_point)} layer and M points")

    if args.write_target:
        if not fit_points:
            sys.exit("gpu_sweep.py: no compute-bound unfused or per_peer point to fit")
        out = subprocess.run([args.tp_opt, f"--tp-print-target={args.target}"],
                             capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"gpu_sweep.py: {out.stderr.strip()}")
        fitted, tiles = fit(json.loads(out.stdout), fit_points)
        with open(args.write_target, "w") as f:
            json.dump(fitted, f, indent=2)
            f.write("\n")
        print(f"\ntarget description written to {args.write_target} (tiles fitted: "
              + ", ".join(f"{r}x{c}" for r, c in tiles) + ")")


if __name__ == "__main__":
    main()
