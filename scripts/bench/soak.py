#!/usr/bin/env python3
"""Soak benchmark (not a test): many steps in a row on 4 ranks, and whether
resident memory and open file descriptors stay flat after warm-up.

For each program and transport it runs

    tp-run PROGRAM --ranks 4 --steps N --pipeline tp-lower-linear,cse,tp-async-tp

and reads tp-run's own step report: the largest rank process's resident
memory and open files after step 100 (warm-up) and after step N, and the
median step time. A run that fails (a timeout, a lost rank) is a row with
its exit status. The programs are the bundled example (examples/
seqpar_mlp.mlir) and a sequence-parallel attention block with its glue
(RMSNorm, softmax; test/Pipelines/Inputs/glue_attention_block.mlir).

    python3 scripts/bench/soak.py [--build build] [--steps 2000]
        [--transports threads,mpi]

Prints a Markdown table (docs/Robustness.md keeps one).
"""
import argparse
import os
import re
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROGRAMS = {
    "examples/seqpar_mlp.mlir": "bundled example",
    "test/Pipelines/Inputs/glue_attention_block.mlir": "attention block with glue",
}
PIPELINE = "tp-lower-linear,cse,tp-async-tp"
RESOURCES = re.compile(
    r"resident memory \(largest rank process\): ([\d.]+) MiB after step (\d+), "
    r"([\d.]+) MiB after step (\d+) \(([+-][\d.]+) MiB\); open files: (\d+), then (\d+)")
STEPS = re.compile(r"steps: (\d+); step time \(slowest rank\): first ([\d.]+) ms, "
                   r"best ([\d.]+) ms, median ([\d.]+) ms")


def soak(tp_run, program, transport, steps):
    command = [tp_run, os.path.join(ROOT, program), "--ranks", "4",
               "--steps", str(steps), "--pipeline", PIPELINE]
    if transport == "mpi":
        command += ["--transport", "mpi"]
    env = dict(os.environ)
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    start = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    wall = time.monotonic() - start
    resources = RESOURCES.search(done.stdout)
    timing = STEPS.search(done.stdout)
    if done.returncode != 0 or not resources or not timing:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return f"| {PROGRAMS[program]} | {transport} | failed ({done.returncode}): {last} |"
    warm_mib, warm_step, last_mib, last_step, growth, warm_fds, last_fds = \
        resources.groups()
    return (f"| {PROGRAMS[program]} | {transport} | {last_step} | "
            f"{warm_mib} | {last_mib} | {growth} | {warm_fds} -> {last_fds} | "
            f"{timing.group(4)} | {wall:.0f} s | 0 |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--transports", default="threads,mpi")
    args = parser.parse_args()
    tp_run = os.path.join(args.build, "bin", "tp-run")
    print("| program | ranks as | steps | RSS after step 100 (MiB) | "
          "RSS after the last (MiB) | growth (MiB) | open files | "
          "median step (ms) | wall | timeouts |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for program in PROGRAMS:
        for transport in args.transports.split(","):
            print(soak(tp_run, program, transport, args.steps), flush=True)


if __name__ == "__main__":
    main()
