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
