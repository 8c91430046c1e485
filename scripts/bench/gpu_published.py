#!/usr/bin/env python3
"""The GPU cost model against the GPU measurements peers published.

For every published row (docs/CostModel.md#validation-against-published-gpu-measurements
cites them) this writes the per-rank program (all-gather -> matmul or
matmul -> reduce-scatter on 8 ranks), asks `tp-opt --tp-async-tp` with the
machine's preset for its prediction, and prints predicted against published:

- the unfused GEMM, the unfused collective and their sum (the model's own
  terms, from the remark);
- fused: FLUX is one persistent GEMM whose tiles wait for their rows, which
  none of our schedules is: its bound max(GEMM, transfers + GEMM / G) is
  composed from the model's terms (its own-shard copy or final reduction,
  1-4% of these rows, left out). PyTorch's decomposition is our per_peer
  schedule with one piece per rank (PyTorch alternates two streams; the
  CUDA backend has one compute stream).

    gpu_published.py [--tp-opt build/bin/tp-opt]

A benchmark of the model, not a test: it runs nothing on a GPU.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
G = 8

# (label, preset, gather, rows per rank, N, K, element type, published ms,
#  source). Published: gemm / comm / total unfused and the fused total; None
#  where the source gives no number.
FLUX_MD = "bytedance/flux docs/performance_report.md"
FLUX_L20 = "bytedance/flux docs/performance.md"
PYTORCH = "pytorch/pytorch PR 143160"
CASES = [
    # FLUX: global M 4096, K 12288, N 49152 split 8 ways (AG: A 512x12288
    # per rank, weight 12288x6144); RS: K 49152 split 8 ways (A 4096x6144,
    # weight 6144x12288, product scattered to 512x12288).
    ("FLUX AG+GEMM A800", "a800-nvlink", True, 512, 6144, 12288, "f16",
     dict(gemm=2.438, comm=0.662, total=3.099, fused=2.469), FLUX_MD),
    ("FLUX GEMM+RS A800", "a800-nvlink", False, 512, 12288, 6144, "f16",
     dict(gemm=2.453, comm=0.646, total=3.100, fused=2.508), FLUX_MD),
    ("FLUX AG+GEMM H800", "h800-nvlink", True, 512, 6144, 12288, "f16",
     dict(gemm=0.846, comm=0.583, total=1.429, fused=0.957), FLUX_MD),
    ("FLUX GEMM+RS H800", "h800-nvlink", False, 512, 12288, 6144, "f16",
     dict(gemm=0.818, comm=0.590, total=1.408, fused=0.932), FLUX_MD),
    ("FLUX AG+GEMM L20", "l20-pcie", True, 512, 6144, 12288, "f16",
     dict(gemm=5.746, comm=11.200, total=16.946, fused=5.903), FLUX_L20),
    ("FLUX GEMM+RS L20", "l20-pcie", False, 512, 12288, 6144, "f16",
     dict(gemm=5.392, comm=12.273, total=17.664, fused=5.730), FLUX_L20),
    # PyTorch's micro-benchmark: M 2048, N 3584, K 8192 on 8 H100s, bf16:
    # NCCL + cuBLAS 301 us, the per-shard decomposition 354 us.
    ("PyTorch AG+mm H100", "h100-nvlink", True, 256, 3584, 8192, "bf16",
     dict(gemm=None, comm=None, total=0.301, fused=0.354), PYTORCH),
]

REMARK = re.compile(
    r"(?P<verdict>fused for|not fused).*?per_peer, 1 piece per rank: predicted "
    r"unfused (?P<unfused>[\d.]+) us, fused (?P<fused>[\d.]+) us.*?"
    r"unfused: collective (?P<comm>[\d.]+) us \+ GEMM (?P<gemm>[\d.]+) us "
    r"\((?P<gemm_tiles>[^)]*)\); fused: pieces (?P<pieces>[\d.]+) us \+ "
    r"transfers (?P<transfers>[\d.]+) us, each piece (?P<piece>.*) on")


def program(gather, r, n, k, dt):
    t = lambda *shape: "tensor<" + "x".join(map(str, shape)) + f"x{dt}>"
    head = f"shard.grid @tp(shape = {G})\n"
    if gather:
        return head + f"""func.func @main(%x: {t(r, k)}, %w: {t(k, n)}) -> {t(G * r, n)} {{
  %g = tp.all_gather %x on @tp axes = [0] dim = 0 : {t(r, k)} -> {t(G * r, k)}
  %y = tp.matmul %g, %w : {t(G * r, k)}, {t(k, n)} -> {t(G * r, n)}
  return %y : {t(G * r, n)}
}}
"""
    return head + f"""func.func @main(%h: {t(G * r, k)}, %w: {t(k, n)}) -> {t(r, n)} {{
  %p = tp.matmul %h, %w : {t(G * r, k)}, {t(k, n)} -> {t(G * r, n)}
  %y = tp.reduce_scatter %p on @tp axes = [0] dim = 0 reduce = sum : {t(G * r, n)} -> {t(r, n)}
  return %y : {t(r, n)}
}}
"""


def predict(tp_opt, preset, text, tmp, forced=True):
    path = os.path.join(tmp, "case.mlir")
    with open(path, "w") as f:
        f.write(text)
    options = f"target={preset} emit-remarks" + (" algorithm=per_peer chunks=1" if forced else "")
    out = subprocess.run([tp_opt, path, f"--tp-async-tp={options}", "-o", os.devnull],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"tp-opt failed:\n{out.stderr}")
    return out.stderr


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tp-opt", default=os.path.join(ROOT, "build", "bin", "tp-opt"))
    args = parser.parse_args()

    rows, errors = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for label, preset, gather, r, n, k, dt, published, source in CASES:
            remark = predict(args.tp_opt, preset, program(gather, r, n, k, dt), tmp)
            m = REMARK.search(remark)
            if not m:
                sys.exit(f"{label}: no prediction in tp-opt's remark:\n{remark}")
            us = {key: float(m.group(key)) for key in
                  ("unfused", "fused", "comm", "gemm", "pieces", "transfers")}
            best = predict(args.tp_opt, preset, program(gather, r, n, k, dt), tmp, forced=False)
            chosen = re.search(r"fused for '[^']*' with (\S+), (\d+) (?:piece|GEMM)[^:]*?"
                               r"(?: on (\d+) streams)?:", best)
            decision = (f"fuse ({chosen.group(1)}, {chosen.group(2)}"
                        + (f", {chosen.group(3)} streams" if chosen.group(3) else "") + ")"
                        if chosen else "unfused")
            if label.startswith("FLUX"):
                # FLUX sends its partials in the output type, not fp32 as our
                # reduce-scatter does: the same bytes as gathering r x N.
                transfers = us["transfers"]
                if not gather:
                    same_bytes = predict(args.tp_opt, preset, program(True, r, 128, n, dt), tmp)
                    transfers = float(REMARK.search(same_bytes).group("transfers"))
                fused = max(us["gemm"], transfers + us["gemm"] / G)
                fused_how = "FLUX's one kernel: max(GEMM, transfers + GEMM / 8), from the model's terms"
            else:
                fused = us["fused"]
                fused_how = "our per_peer, 1 piece per rank (1 compute stream)"
            for quantity, predicted, how in [
                    ("unfused GEMM", us["gemm"], m.group("gemm_tiles")),
                    ("unfused collective", us["comm"], "NCCL ring"),
                    ("unfused total", us["unfused"], ""),
                    ("fused", fused, fused_how)]:
                key = {"unfused GEMM": "gemm", "unfused collective": "comm",
                       "unfused total": "total", "fused": "fused"}[quantity]
                pub = published[key]
                error = None if pub is None else 100 * (predicted / 1e3 - pub) / pub
                if error is not None:
                    errors.append(abs(error))
                rows.append((label, quantity, predicted / 1e3, pub, error, how))
            rows.append((label, "decision (min gain 5%)", None, None, None,
                         f"{decision}; published: fused "
                         f"{'faster' if published['fused'] < published['total'] else 'slower'}"))
            rows.append((label, "source", None, None, None, source))

    print("| case | quantity | predicted ms | published ms | error | how |")
    print("|---|---|---|---|---|---|")
    for label, quantity, predicted, pub, error, how in rows:
        fmt = lambda v, f: "-" if v is None else f.format(v)
        print(f"| {label} | {quantity} | {fmt(predicted, '{:.3f}')} | {fmt(pub, '{:.3f}')} | "
              f"{fmt(error, '{:+.1f}%')} | {how} |")
    within = sum(e <= 15 for e in errors)
    print(f"\n{within} of {len(errors)} published numbers within 15%; "
          f"mean |error| {sum(errors) / len(errors):.1f}%, worst {max(errors):.1f}%")


if __name__ == "__main__":
    main()
