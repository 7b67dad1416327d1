#!/usr/bin/env python3
"""cpu_run.py TIMEOUT RSSFILE OUTFILE CMD...: runs CMD under /usr/bin/time and `timeout`, its output (stdout
and stderr) into OUTFILE, and prints "CPU_S RSS_MIB RC WALL_S". CPU (user+sys) comes from wait4 on
/usr/bin/time, which has waited for the command, so it includes the command's, to the microsecond
(/usr/bin/time's own 10 ms would read 0 for a run of a few milliseconds); peak RSS from /usr/bin/time itself
(a Python child's would include Python's own pages), written to RSSFILE; rc 124 on timeout.
Used by scripts/bench.sh and scripts/bench_loggopsim.sh."""
import os
import sys
import time

timeout, rssf, out, cmd = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
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
print(f"{ru.ru_utime + ru.ru_stime:.4f} {rss:.1f} {os.waitstatus_to_exitcode(status)} {wall:.3f}")
