"""Times tp ops in steady state: instances of a candidate run back to back
in the body of a loop, and each instance's time is read from tp-run's trace.

Only one element of each instance's result is kept, so the buffers of the
loop's first trip are freed and the later trips reuse them, as a training
loop does: no page faults on fresh memory, no process start or compile in
the measured spans. Used by cost_model.py and calibrate_cpu.py.
"""
import json
import os
import re
import subprocess

# Lines of the program before the loop's body (see loop_program).
_HEADER_LINES = 7


def loop_program(grid, args, instances, trips):
    """A function `@f(args)` on a grid of `grid` ranks whose loop runs
    `instances` back to back, `trips` times. An instance is (lines, result,
    result type): its ops, which may use the arguments and %c0, and the
    value whose first element is kept. Returns the text and, per source line
    of a tp op, the index of its instance."""
    body, line_of = [], {}
    for i, (lines, result, result_type) in enumerate(instances):
        for line in lines:
            if re.match(r"\s*%\S+ = tp\.", line):
                line_of[_HEADER_LINES + 1 + len(body)] = i
            body.append("    " + line.strip())
        index = ", ".join(["%c0"] * result_type.count("x"))  # one per dim
        body.append(f"    %kept{i} = tensor.extract {result}[{index}] : {result_type}")
        body.append(f"    %sum{i} = arith.addf %sum{i - 1 if i else 'In'}, %kept{i} : f32")
    text = (f"shard.grid @tp(shape = {grid})\n"
            f"func.func @f({', '.join(args)}) -> tensor<1xf32> {{\n"
            f"  %c0 = arith.constant 0 : index\n"
            f"  %c1 = arith.constant 1 : index\n"
            f"  %trips = arith.constant {trips} : index\n"
            f"  %zero = arith.constant 0.0 : f32\n"
            f"  %total = scf.for %trip = %c0 to %trips step %c1 iter_args(%sumIn = %zero) -> (f32) {{\n"
            + "\n".join(body) + f"\n    scf.yield %sum{len(instances) - 1} : f32\n  }}\n"
            f"  %out = tensor.from_elements %total : tensor<1xf32>\n"
            f"  return %out : tensor<1xf32>\n}}\n")
    assert text.split("\n")[_HEADER_LINES - 1].startswith("  %total = scf.for")
    return text, line_of


def run_traced(build, path, ranks, tmp, extra=()):
    """tp-run's trace events ('X' slices) of one run, sorted by start."""
    trace = os.path.join(tmp, "loop-trace.json")
    subprocess.run([os.path.join(build, "bin", "tp-run"), path, "--ranks", str(ranks), "--trace", trace,
                    "--pipeline", "cse"] + list(extra), check=True, stdout=subprocess.DEVNULL)
    with open(trace) as f:
        return sorted((e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"), key=lambda e: e["ts"])


def instance_slices(events, line_of):
    """Groups GEMM and transfer slices by (rank, trip, instance). A slice
    belongs to the op whose glue slice ("compiled code before 'op' at
    FILE:LINE:COL") precedes it on its rank; a trip ends when the ops' lines
    start over."""
    groups, current, trip = {}, {}, {}
    for e in events:
        rank = e["pid"]
        if e.get("cat") == "glue":
            where = re.search(r":(\d+):\d+$", e["name"])
            i = line_of.get(int(where.group(1))) if where else None
            if i is not None and current.get(rank) is not None and i < current[rank]:
                trip[rank] = trip.get(rank, 0) + 1
            if i is not None:
                current[rank] = i
            continue
        if e.get("cat") not in ("gemm", "comm") or current.get(rank) is None:
            continue
        groups.setdefault((rank, trip.get(rank, 0), current[rank]), []).append(e)
    return groups


def instance_times(events, line_of):
    """{(trip, instance): microseconds}: the worst rank's time from the
    instance's first to its last GEMM or transfer slice."""
    worst = {}
    for (rank, trip, i), group in instance_slices(events, line_of).items():
        span = max(e["ts"] + e["dur"] for e in group) - min(e["ts"] for e in group)
        worst[(trip, i)] = max(worst.get((trip, i), 0.0), span)
    return worst


def best_by_instance(times, key_of):
    """The fastest time of each key over every trip and instance with it."""
    best = {}
    for (_, i), t in times.items():
        key = key_of(i)
        best[key] = min(best.get(key, float("inf")), t)
    return best
