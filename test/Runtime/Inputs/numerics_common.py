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


def compare(cmd):
    """Runs a `tp-run ... --compare-pipeline` command: (ok, max normalized
    error as printed, full output)."""
    result = run(cmd)
    verdict = re.search(r"max normalized error (\S+)\)", result.stdout)
    ok = result.returncode == 0 and verdict is not None
    return ok, verdict.group(1) if verdict else None, result.stdout


def finish(passed, total):
    print(f"passed {passed} of {total}")
    sys.exit(0 if passed == total else 1)
