#!/usr/bin/env python3
"""The Llama step from sharding annotations to N ranks, checked against numpy.

    run.py [--ranks 8] [--dtype f32|bf16] [--transport loopback|mpi] [--looped]
           [--layers 4 --hidden 256 ...] [--work DIR]
           [--tp-opt BIN] [--tp-run BIN] [--mlir-opt BIN]

1. llama.py writes the unsharded step with `shard` annotations (step.mlir),
   layers unrolled or (--looped) as one loop over stacked weights;
2. upstream's sharding-propagation and shard-partition make one rank's
   program (partitioned.mlir): mlir-opt's, or tp-opt's for the loop, which
   adds tp's sharding model for scf.for;
3. tp-opt's pipeline, with sequence parallelism, fuses it; its remarks give
   the fusion counts and the reason for each collective left unfused;
4. tp-run runs it fused and as partitioned (unfused) on the same inputs and
   compares every result on every rank;
5. numpy evaluates the unsharded step in float64, and every rank's loss and
   gradients are compared with their share of it.

Prints the fusion table and the numerics; exits 1 when a check fails.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from llama import LoopedStep, add_config, build_step, config_of, inputs  # noqa: E402

PARTITION = ("builtin.module(func.func(sharding-propagation,sharding-propagation,"
             "shard-partition,canonicalize,cse))")
PIPELINE = "tp-async-tp-pipeline{sequence-parallel}"
# Largest |tp-run - numpy| / max |numpy| per result. bf16 stores every
# activation and gradient in 8 bits of mantissa, through every layer.
TOLERANCE = {"f32": 1e-4, "bf16": 6e-2}
# Fused against unfused: in bf16 the two round partial sums at different
# points; each is about 2e-2 from numpy in the q and k projections'
# gradients (through the softmax's backward), so they may differ by twice that.
COMPARE = {"f32": [], "bf16": ["--tolerance", "6e-2"]}


def to_bf16(a):
    bits = a.astype(np.float32).view(np.uint32)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.view(np.float32)


def run(cmd, **kwargs):
    result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            **kwargs)
    if result.returncode != 0:
        sys.exit(f"FAILED: {' '.join(cmd)}\n{result.stdout}")
    return result.stdout


def fusion_table(remarks):
    """Counts by kind from the tp-async-tp stats remark, and the reasons of
    the collectives left unfused."""
    stats = re.search(r"tp-async-tp: (\d+) all-gather-matmul .*?, (\d+) matmul-reduce-scatter,"
                      r".*?(\d+) all-gather-contract, (\d+) collectives left unfused", remarks)
    if not stats:
        sys.exit("FAILED: no tp-async-tp stats remark\n" + remarks)
    reasons = {}
    for reason in re.findall(r"remark: (all-gather|reduce-scatter|all-reduce) not fused: ([^\n]*)",
                             remarks):
        reasons[reason] = reasons.get(reason, 0) + 1
    return [int(g) for g in stats.groups()], reasons


def write_inputs(folder, step, values, ranks):
    for r in range(ranks):
        os.makedirs(os.path.join(folder, f"rank{r}"), exist_ok=True)
        for i, (v, split) in enumerate(step.args):
            full = values[v.name[1:]]
            mine = full if split is None else np.split(full, ranks, axis=split)[r]
            np.save(os.path.join(folder, f"rank{r}", f"arg{i}.npy"), mine.astype(np.float32))


def compare_with_numpy(dumps, step, expected, ranks):
    """(worst normalized error over the gradients, the loss as the ranks
    have it, numpy's loss)."""
    worst = 0.0
    for r in range(ranks):
        for j, ((v, split), full) in enumerate(zip(step.results, expected)):
            want = full if split is None else np.split(full, ranks, axis=split)[r]
            got = np.load(os.path.join(dumps, f"rank{r}", f"result{j}.npy")).astype(np.float64)
            if got.shape != want.shape:
                sys.exit(f"FAILED: rank {r} result {j}: shape {got.shape}, numpy {want.shape}")
            worst = max(worst, np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))
    # The loss by token: on every rank, or (sequence parallel) its tokens'.
    owners = [0] if step.results[0][1] is None else range(ranks)
    loss = sum(np.load(os.path.join(dumps, f"rank{r}", "result0.npy")).astype(np.float64).sum()
               for r in owners)
    return worst, loss, expected[0].sum()


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_config(parser)
    parser.add_argument("--ranks", type=int, default=8)
    parser.add_argument("--dtype", default="f32", choices=["f32", "bf16"])
    parser.add_argument("--transport", default="loopback", choices=["loopback", "mpi"])
    parser.add_argument("--tp-opt", default="tp-opt")
    parser.add_argument("--tp-run", default="tp-run")
    parser.add_argument("--mlir-opt", default="mlir-opt-22")
    parser.add_argument("--work", help="keep the files here (default: a temporary folder)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--looped", action="store_true",
                        help="the layers as one loop over stacked weights (scf.for), "
                             "partitioned by tp-opt (upstream's passes with tp's loop model)")
    parser.add_argument("--sequence-parallel", action="store_true",
                        help="with --looped: annotate the residual stream between layers "
                             "as split on the tokens")
    args = parser.parse_args()
    cfg = config_of(args)
    for what, size in (("--kv-heads", cfg.kv_heads), ("--ffn", cfg.ffn), ("--seq", cfg.seq)):
        if args.ranks < 1 or size % args.ranks:
            sys.exit(f"run.py: {what} {size} must be a multiple of --ranks {args.ranks}: "
                     "Megatron splits heads and the FFN, sequence parallelism the tokens")
    if cfg.head_dim % 2:
        sys.exit(f"run.py: --head-dim {cfg.head_dim} must be even (rotary halves)")

    work = args.work or tempfile.mkdtemp(prefix="llama-")
    os.makedirs(work, exist_ok=True)
    if args.sequence_parallel and not args.looped:
        sys.exit("run.py: --sequence-parallel annotates the loop's carried values: add --looped")
    step = (LoopedStep(cfg, args.dtype, args.ranks, args.sequence_parallel) if args.looped
            else build_step(cfg, args.dtype, args.ranks))
    source, partitioned = os.path.join(work, "step.mlir"), os.path.join(work, "partitioned.mlir")
    with open(source, "w") as f:
        f.write(step.text())
    # Upstream's mlir-opt stops at a loop (no sharding model for scf.for);
    # tp-opt runs the same passes with tp's.
    run([args.tp_opt if args.looped else args.mlir_opt, source, f"--pass-pipeline={PARTITION}",
         "-o", partitioned])
    remarks = run([args.tp_opt, partitioned,
                   "--tp-async-tp-pipeline=emit-remarks stats sequence-parallel",
                   "-o", os.path.join(work, "fused.mlir")])
    (gathers, scatters, contracts, unfused), reasons = fusion_table(remarks)
    print(f"llama step{' (looped)' if args.looped else ''}: {cfg.layers} layers, hidden {cfg.hidden}, {cfg.kv_heads} kv heads x "
          f"{cfg.group}, ffn {cfg.ffn}, seq {cfg.seq}; {args.ranks} ranks ({args.transport}), "
          f"{args.dtype}")
    print(f"fused: {gathers} all-gather-matmul, {scatters} matmul-reduce-scatter, "
          f"{contracts} all-gather-contract; {unfused} left unfused")
    for reason, count in sorted(reasons.items()):
        print(f"  unfused {reason[0]} x{count}: {reason[1]}")

    rng = np.random.default_rng(args.seed)
    values = inputs(cfg, rng)
    if args.looped:
        values = step.stacked(values)
    if args.dtype == "bf16":
        values = {k: to_bf16(v) for k, v in values.items()}
    folder, dumps = os.path.join(work, "inputs"), os.path.join(work, "results")
    write_inputs(folder, step, values, args.ranks)
    # MPI ranks are processes that each compile the program: on a machine
    # with fewer cores than ranks, the first step waits for the slowest.
    transport = ([] if args.transport == "loopback"
                 else ["--transport", args.transport, "--timeout-ms", "600000"])
    output = run([args.tp_run, partitioned, "--ranks", str(args.ranks),
                  "--input-dir", folder, "--dump-dir", dumps, "--pipeline", PIPELINE,
                  "--compare-pipeline", "", "--steps", "1"] + transport + COMPARE[args.dtype])
    verdict = re.search(r"max normalized error (\S+)\)", output)
    if not verdict:
        sys.exit("FAILED: tp-run printed no comparison\n" + output)
    worst, loss, numpy_loss = compare_with_numpy(
        dumps, step, step.evaluate({k: v.astype(np.float64) for k, v in values.items()}),
        args.ranks)
    ok = worst <= TOLERANCE[args.dtype]
    peak = re.search(r"buffers at their peak .*?: ([0-9.]+ MiB) .*? on rank (\d+)", output)
    print(f"fused vs unfused: max normalized error {verdict.group(1)}")
    if peak:
        print(f"peak of compiled-code buffers (activations and temporaries) per rank: "
              f"{peak.group(1)} (rank {peak.group(2)}, the largest)")
    print(f"vs numpy (unsharded, float64): loss {loss:.6f} vs {numpy_loss:.6f}; "
          f"worst result {worst:.1e} (tolerance {TOLERANCE[args.dtype]:.0e})")
    print("ok" if ok else "FAILED")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
