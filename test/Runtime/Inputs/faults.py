"""Faults a cluster does to a job, done to tp-run (test/Runtime/faults.test).

    faults.py SCENARIO TP_RUN MPIRUN WORK_DIR

Runs tests/Runtime/Inputs/stall.mlir on 3 ranks (rank 1 spins in compiled
code, ranks 0 and 2 wait for it in an all-reduce) and, once rank 1 spins:

  kill-spinning     SIGKILL rank 1's process    (tp-run --transport mpi)
  kill-waiting      SIGKILL rank 0's process    (tp-run --transport mpi)
  kill-user-mpirun  SIGKILL rank 1's process    (mpirun -n 3 tp-run)
  sigint-mpi, sigterm-mpi, sigint-twice-mpi     to tp-run --transport mpi
  sigint-threads, sigterm-threads               to tp-run (ranks as threads)

Then prints what a user would look at, one fact a line, for FileCheck:
the exit status, tp-run's messages, whether every process ended within the
limit, and what is left behind: processes of the run and files in the run's
TMPDIR (Open MPI's session folder and shared-memory segments live there) or
its dump folder.
"""

import os
import shutil
import signal
import subprocess
import sys
import time

STALL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stall.mlir")
# Far beyond the time a fault may take to end the run: ranks must not wait
# for the collective timeout to notice a lost peer.
TIMEOUT_MS = 120000
STOP_LIMIT_S = 30


def processes():
    """pid -> (state, cmdline, environ) of every readable process."""
    found = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{name}/environ", "rb") as f:
                environ = f.read().split(b"\0")
        except OSError:
            continue
        state = stat[stat.rfind(")") + 2]
        found[int(name)] = (state, cmdline, environ)
    return found


def run_processes(marker):
    """The live processes of this run: their command line or environment
    names the run's folder (ranks started by mpirun inherit TMPDIR)."""
    tag = marker.encode()
    return {pid: info for pid, info in processes().items()
            if pid != os.getpid() and info[0] != "Z" and (marker in info[1] or
                                   any(tag in var for var in info[2]))}


def rank_pid(marker, rank):
    for pid, (_, cmdline, environ) in run_processes(marker).items():
        if "tp-run" in cmdline and \
                f"OMPI_COMM_WORLD_RANK={rank}".encode() in environ:
            return pid
    return None


def spinning(pid):
    """Whether a thread of `pid` has marked itself (nice +1 in stall.mlir)."""
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
            if int(stat[stat.rfind(")") + 2:].split()[16]) > 0:
                return True
    except OSError:
        pass
    return False


def wait_for(condition, what, limit=120):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    sys.exit(f"faults.py: {what} did not happen within {limit} s")


def left_files(folder):
    left = []
    for root, dirs, files in os.walk(folder):
        left += [os.path.relpath(os.path.join(root, n), folder)
                 for n in dirs + files]
    return sorted(left)


def main():
    scenario, tp_run, mpirun, work = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    tmp = os.path.join(work, "tmp")
    dump = os.path.join(work, "dump")
    os.makedirs(tmp)
    program = os.path.join(work, "stall.mlir")
    shutil.copy(STALL, program)
    env = dict(os.environ, TMPDIR=tmp)
    threads = scenario.endswith("-threads")
    run = [tp_run, program, "--ranks", "3", "--timeout-ms", str(TIMEOUT_MS)]
    if scenario == "kill-user-mpirun":
        command = [mpirun, "--oversubscribe", "-n", "3"] + run[:2] + run[4:]
    elif threads:
        # sigterm-threads dumps into a folder that exists (it is marked
        # incomplete); sigint-threads into one tp-run creates (it is removed).
        if scenario == "sigterm-threads":
            os.makedirs(dump)
        command = run + ["--dump-dir", dump]
    else:
        command = run + ["--transport", "mpi"]
    top = subprocess.Popen(command, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)

    if threads:
        wait_for(lambda: spinning(top.pid), "rank 1 spinning")
    else:
        spinner = wait_for(lambda: rank_pid(work, 1), "rank 1 starting")
        wait_for(lambda: spinning(spinner), "rank 1 spinning")
    # The waiting ranks are in the all-reduce by now (the ranks start their
    # programs together); give them a moment to be deep inside it.
    time.sleep(0.5)
    if scenario.startswith("kill-"):
        victim = rank_pid(work, 0 if scenario == "kill-waiting" else 1)
        os.kill(victim, signal.SIGKILL)
    else:
        sig = signal.SIGINT if scenario.startswith("sigint") else signal.SIGTERM
        os.kill(top.pid, sig)
        if scenario.startswith("sigint-twice"):
            time.sleep(0.2)
            os.kill(top.pid, sig)
    signalled = time.monotonic()
    try:
        output, _ = top.communicate(timeout=STOP_LIMIT_S)
    except subprocess.TimeoutExpired:
        top.kill()
        output, _ = top.communicate()
        print(f"run still going {STOP_LIMIT_S} s after the fault")
    took = time.monotonic() - signalled

    # Whatever outlives tp-run is left behind; give exiting processes 2 s.
    deadline = time.monotonic() + 2
    while run_processes(work) and time.monotonic() < deadline:
        time.sleep(0.05)
    survivors = run_processes(work)
    for pid in survivors:
        os.kill(pid, signal.SIGKILL)

    print(f"exit status: {top.returncode}")
    for line in output.splitlines():
        if line.startswith(("tp-run:", "MPI rank", "mpirun")) or \
                "process rank" in line:
            print(f"said: {line}")
    print(f"stopped within {STOP_LIMIT_S} s: {'yes' if took < STOP_LIMIT_S else 'no'}"
          f" ({took:.1f} s)")
    print(f"processes left: {len(survivors)}")
    print(f"files left in TMPDIR: {left_files(tmp) or 'none'}")
    if threads:
        print(f"dump folder: {left_files(dump) if os.path.isdir(dump) else 'removed'}")


if __name__ == "__main__":
    main()
