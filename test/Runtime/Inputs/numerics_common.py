"""What the numerics drivers share: running a tool, reading tp-run's verdict
on a fused vs unfused comparison, and the closing "passed N of N" line."""
import re
import subprocess
import sys


def run(cmd, timeout=600, **kwargs):
    """Runs `cmd`, stdout and stderr together as text; a run past `timeout`
    seconds is stopped and fails."""
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=timeout, **kwargs)
    except subprocess.TimeoutExpired as expired:
        output = expired.stdout or ""
        if isinstance(output, bytes):
            output = output.decode(errors="replace")
        return subprocess.CompletedProcess(
            cmd, 124, output + f"\nstopped after {timeout} s: {' '.join(cmd)}\n")


TRANSPORT_HELP = "tp-run --transport: loopback (threads) or mpi (one process per rank, cpu backend)"


def add_transport(parser, help=TRANSPORT_HELP):
    """The drivers' --transport option (default loopback)."""
    parser.add_argument("--transport", default="loopback", help=help)


def transport_args(args):
    """What every tp-run command of a driver gets for its --transport:
    nothing for loopback (tp-run's default), else `--transport T`."""
    return [] if args.transport == "loopback" else ["--transport", args.transport]


def compare(cmd):
    """Runs a `tp-run ... --compare-pipeline` command: (ok, max normalized
    error as printed, full output)."""
    result = run(cmd)
    verdict = re.search(r"max normalized error (\S+)\)", result.stdout)
    ok = result.returncode == 0 and verdict is not None
    return ok, verdict.group(1) if verdict else None, result.stdout


def report(line, ok, detail):
    """Prints a case's line; a failed case's detail follows it, and goes to
    stderr too: lit keeps stderr in its log even when FileCheck stops
    reading stdout, so a rare failure in CI can be told from its log."""
    if ok:
        print(line)
        return
    print(f"{line}\n{detail}")
    print(f"{line}\n{detail}", file=sys.stderr, flush=True)


def finish(passed, total):
    print(f"passed {passed} of {total}")
    sys.exit(0 if passed == total else 1)


def to_bf16(a):
    """Rounds float32 values to bf16 (nearest even), as tp-run stores them."""
    import numpy as np  # only the drivers that compare with numpy call this
    bits = a.astype(np.float32).view(np.uint32)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.view(np.float32)


def write_rank_inputs(folder, g, shapes, replicated, dt, rng, given=None):
    """Writes folder/rank<r>/arg<i>.npy for tp-run --input-dir: uniform
    values in [-1, 1) (rounded to bf16 for dt bf16), one draw per replicated
    argument shared by every rank, and `given(rng, r)`'s {index: array} where
    it says. Returns each rank's arguments in float64, for numpy."""
    import os
    import numpy as np
    shared, ranks = {}, []
    for r in range(g):
        os.makedirs(os.path.join(folder, f"rank{r}"))
        fixed = given(rng, r) if given else {}
        values = []
        for i, shape in enumerate(shapes):
            if i in fixed:
                v = fixed[i]
            elif replicated[i] and i in shared:
                v = shared[i]
            else:
                v = rng.uniform(-1, 1, shape).astype(np.float32)
            v = to_bf16(v) if dt == "bf16" else v
            shared.setdefault(i, v)
            np.save(os.path.join(folder, f"rank{r}", f"arg{i}.npy"), v)
            values.append(v.astype(np.float64))
        ranks.append(values)
    return ranks


def against_numpy(cmd, dumps, expected_by_rank, tolerance):
    """Runs a `tp-run ... --dump-dir dumps --compare-pipeline` command and
    compares every rank's results with numpy's: (ok, "fused vs unfused E,
    vs numpy W"), or (False, why)."""
    ok, error, output = compare(cmd)
    if not ok:
        return False, output
    worst, mismatch = worst_error(dumps, expected_by_rank)
    if mismatch:
        return False, mismatch
    if worst > tolerance:
        return False, f"against numpy: normalized error {worst:.2e} > {tolerance:.0e}"
    return True, f"fused vs unfused {error}, vs numpy {worst:.2e}"


def check_against_numpy(args, tmp, tag, g, dt, text, pipeline, fused_check, shapes,
                        replicated, reference, tolerance, seed, given=None):
    """One case of a driver that checks a per-rank program against numpy:
    writes `text` on a grid of `g` ranks, runs tp-opt with `pipeline` and asks
    `fused_check(result)` for why the fusion is wrong ("" when right), writes
    inputs (write_rank_inputs, seeded with `seed`), runs tp-run through the
    pipeline and as written, and compares with `reference(inputs)` (a list per
    rank of expected results). (ok, detail)."""
    import os
    import numpy as np
    path = os.path.join(tmp, f"{tag}.mlir")
    with open(path, "w") as f:
        f.write(f"shard.grid @tp(shape = {g})\n" + text)
    fused = run([args.tp_opt, path, f"--pass-pipeline=builtin.module({pipeline})"])
    why = "tp-opt failed" if fused.returncode != 0 else fused_check(fused.stdout)
    if why:
        return False, f"{why}\n{fused.stdout}"
    inputs, dumps = os.path.join(tmp, f"in_{tag}"), os.path.join(tmp, f"out_{tag}")
    ins = write_rank_inputs(inputs, g, shapes, replicated, dt, np.random.default_rng(seed), given)
    return against_numpy([args.tp_run, path, "--ranks", str(g), "--input-dir", inputs,
                          "--dump-dir", dumps, "--pipeline", pipeline, "--compare-pipeline", ""]
                         + transport_args(args), dumps, reference(ins), tolerance)


def worst_error(dumps, expected_by_rank):
    """Largest |dumped - expected| / max |expected| over every result of
    every rank (dumps/rank<R>/result<J>.npy); (error, None), or (None, why)
    when a shape differs."""
    import numpy as np
    worst = 0.0
    for r, expected in enumerate(expected_by_rank):
        for j, e in enumerate(expected):
            got = np.load(f"{dumps}/rank{r}/result{j}.npy").astype(np.float64)
            if got.shape != e.shape:
                return None, f"rank {r} result {j}: shape {got.shape}, numpy {e.shape}"
            worst = max(worst, np.abs(got - e).max() / max(np.abs(e).max(), 1e-30))
    return worst, None


def run_matrix(names, ranks, dtypes, check):
    """Runs check(name, g, dt, tmp) -> (ok, detail) for every combination in
    one temporary folder, prints a line each, then the closing line."""
    import tempfile
    total = passed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            for g in ranks:
                for dt in dtypes:
                    total += 1
                    ok, detail = check(name, g, dt, tmp)
                    passed += ok
                    report(f"{name} g={g} {dt}: " + (f"ok ({detail})" if ok else "FAILED"),
                           ok, detail)
    finish(passed, total)
