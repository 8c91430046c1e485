"""What the numerics drivers share: running a tool, reading tp-run's verdict
on a fused vs unfused comparison, and the closing "passed N of N" line."""
import re
import subprocess
import sys


def run(cmd, **kwargs):
    """Runs `cmd`, stdout and stderr together as text."""
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, **kwargs)


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
