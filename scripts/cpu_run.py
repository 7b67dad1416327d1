#!/usr/bin/env python3
"""cpu_run.py [--wrapped] TIMEOUT OUTFILE CMD...: runs CMD with its output (stdout and stderr) into OUTFILE and
prints "CPU_S RSS_MIB RC WALL_S": CPU time (user+sys, to the microsecond) and peak RSS of CMD and every process
it waited for (smpirun's shell and its smpimain alike), exit code (124 on timeout: the whole process tree is
killed), wall seconds. Used by scripts/bench.sh and scripts/bench_loggopsim.sh, so both programs of a row are
measured the same way.

How, and why this way: no wrapper process is counted. CMD is started through `setsid -f` (util-linux), whose
parent returns at once while its forked child execs CMD in a new session; this script is the child subreaper
(prctl PR_SET_CHILD_SUBREAPER), so CMD is reparented to it and wait4 on CMD returns CMD's own rusage with that
of its descendants. The timeout is a timer here that kills CMD's session (process group), not a `timeout`
process. CMD is not spawned by Python directly: a child made by posix_spawn (vfork) or fork starts with this
Python's memory as its peak RSS (the kernel keeps the old address space's high-water mark across exec, about
13 MiB here: more than a small ccsim run), while setsid's forked child starts from setsid's ~1 MiB.

--wrapped: the measure used before 2026-11-25, kept to compare against: `/usr/bin/time -f %M timeout TIMEOUT
CMD`, CPU from wait4 on /usr/bin/time (so it includes time's and timeout's own start-up, ~0.7 ms each), peak
RSS from /usr/bin/time."""
import ctypes
import os
import signal
import sys
import tempfile
import time

PR_SET_CHILD_SUBREAPER = 36


class TimedOut(Exception):
    pass


def on_alarm(signum, frame):
    raise TimedOut


def run_wrapped(timeout, out, cmd):
    fd_rss, rssf = tempfile.mkstemp(prefix="cpu_run.")
    os.close(fd_rss)
    argv = ["/usr/bin/time", "-f", "%M", "-o", rssf, "timeout", timeout] + cmd
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    t0 = time.monotonic()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, fd, 1), (os.POSIX_SPAWN_DUP2, fd, 2)])
    os.close(fd)
    _, status, ru = os.wait4(pid, 0)
    wall = time.monotonic() - t0
    try:
        rss = int(open(rssf).read().split()[-1]) / 1024
    except (OSError, ValueError, IndexError):
        rss = float("nan")
    os.unlink(rssf)
    return ru.ru_utime + ru.ru_stime, rss, os.waitstatus_to_exitcode(status), wall


def children():
    me = os.getpid()
    with open(f"/proc/{me}/task/{me}/children") as f:
        return [int(x) for x in f.read().split()]


def run_bare(timeout, out, cmd):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit(f"cpu_run: prctl(PR_SET_CHILD_SUBREAPER) failed: {os.strerror(ctypes.get_errno())}")
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    signal.signal(signal.SIGALRM, on_alarm)
    argv = ["setsid", "-f"] + cmd
    t0 = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, float(timeout))
    cmd_pid, timed_out = None, False
    try:
        launcher = os.posix_spawnp(argv[0], argv, os.environ,
                                   file_actions=[(os.POSIX_SPAWN_DUP2, fd, 1), (os.POSIX_SPAWN_DUP2, fd, 2)])
        os.close(fd)
        _, status, _ = os.wait4(launcher, 0)  # setsid's parent: returns as soon as it has forked
        if os.waitstatus_to_exitcode(status) != 0:
            return 0.0, float("nan"), os.waitstatus_to_exitcode(status), time.monotonic() - t0
        cmd_pid = children()[0]  # setsid's child, reparented here (alive or a zombie not yet reaped)
        _, status, ru = os.wait4(cmd_pid, 0)
    except TimedOut:
        timed_out = True
    signal.setitimer(signal.ITIMER_REAL, 0)
    if timed_out:
        for pid in children():  # the session: CMD leads its own process group
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if cmd_pid is None:
            left = children()
            if not left:  # killed before setsid had forked
                return 0.0, float("nan"), 124, time.monotonic() - t0
            cmd_pid = left[0]
        _, status, ru = os.wait4(cmd_pid, 0)
    wall = time.monotonic() - t0
    try:  # anything CMD left running in its group goes too
        os.killpg(cmd_pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    for pid in children():  # descendants that left the group were reparented here: end them too
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.wait4(pid, 0)
    rc = 124 if timed_out else os.waitstatus_to_exitcode(status)
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024, rc, wall


def main():
    args = sys.argv[1:]
    wrapped = bool(args) and args[0] == "--wrapped"
    if wrapped:
        args = args[1:]
    if len(args) < 3:
        print("usage: cpu_run.py [--wrapped] TIMEOUT OUTFILE CMD...", file=sys.stderr)
        sys.exit(2)
    try:
        if float(args[0]) <= 0:
            raise ValueError
    except ValueError:
        print(f"cpu_run: bad TIMEOUT {args[0]!r} (seconds > 0)", file=sys.stderr)
        sys.exit(2)
    cpu, rss, rc, wall = (run_wrapped if wrapped else run_bare)(args[0], args[1], args[2:])
    print(f"{cpu:.6f} {rss:.1f} {rc} {wall:.4f}")


main()
