#!/usr/bin/env python3
"""scripts/one_line_errors.py write_text, the one atomic writer of the generated files (models/VALIDATION.md,
HOLDOUT.md, params-nccl-default.json, evidence.json, the wild table, check_docs --fix, rate_rule_check's cache):
a writer that fails half way leaves the target as it was (or absent) and no temporary beside it; one that
succeeds leaves exactly its text and no temporary."""
import os, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from one_line_errors import write_text  # noqa: E402

fails = 0


def check(what, ok):
    global fails
    if not ok:
        print(f"FAIL: {what}")
        fails += 1


def half_then_fail(f):
    f.write("half of a table\n")
    f.flush()  # on disk in the temporary: the target must still not see it
    raise RuntimeError("the writer failed")


d = tempfile.mkdtemp(prefix="ccsim-atomic-")
target = os.path.join(d, "table.md")

# No target yet: a failing writer leaves none, and no temporary.
try:
    write_text(target, half_then_fail)
    check("a failing writer raises", False)
except RuntimeError:
    pass
check("no target after a failing first write", not os.path.exists(target))
check(f"no stray temporary after a failing first write: {os.listdir(d)}", os.listdir(d) == [])

# A target in place: a failing writer keeps its old text whole.
with open(target, "w") as f:
    f.write("the old table\n")
try:
    write_text(target, half_then_fail, fsync=True)
except RuntimeError:
    pass
check("the old target kept whole", open(target).read() == "the old table\n")
check(f"no stray temporary after a failing rewrite: {os.listdir(d)}", os.listdir(d) == ["table.md"])

# Text that cannot be encoded fails inside the write, the same way.
try:
    write_text(target, "ok\n\udc80 a lone surrogate\n")
    check("an unencodable text raises", False)
except UnicodeEncodeError:
    pass
check("the old target kept after an encoding error", open(target).read() == "the old table\n")
check(f"no stray temporary after an encoding error: {os.listdir(d)}", os.listdir(d) == ["table.md"])

# A target that is a directory: os.replace refuses, the temporary goes.
sub = os.path.join(d, "adir")
os.mkdir(sub)
try:
    write_text(sub, "text\n")
    check("a directory as target raises", False)
except OSError:
    pass
check(f"no stray temporary after a refused rename: {sorted(os.listdir(d))}", sorted(os.listdir(d)) == ["adir", "table.md"])
os.rmdir(sub)

# Success: the text given (a string, or what a callable writes), nothing else in the folder.
write_text(target, "the new table\n")
check("a string written whole", open(target).read() == "the new table\n")
write_text(target, lambda f: f.write('{"a": 1}'))
check("a callable's output written whole", open(target).read() == '{"a": 1}')
check(f"only the target after the writes: {os.listdir(d)}", os.listdir(d) == ["table.md"])

# (mutants8) The temporaries' register, which the signal handler empties: none left once a write is over, done or
# failed (a stale name would be unlinked by a later signal: another run's file of that name).
import one_line_errors  # noqa: E402
check(f"no temporary registered after the writes: {one_line_errors._temps}", not one_line_errors._temps)

# fsync=True syncs the temporary (before the rename), fsync=False does not: os.fsync counted while writing.
synced = []
real_fsync = os.fsync
os.fsync = lambda fd: synced.append(fd) or real_fsync(fd)
try:
    write_text(target, "synced\n", fsync=True)
    check(f"fsync=True: one fsync, got {len(synced)}", len(synced) == 1)
    synced.clear()
    write_text(target, "not synced\n")
    check(f"fsync=False: no fsync, got {len(synced)}", not synced)
finally:
    os.fsync = real_fsync

# SIGTERM half way through a write, with on_signals installed: one line, exit 128 + 15, the target as it was and
# no temporary (the handler removes what write_text registered).
import subprocess  # noqa: E402
scripts = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts")
child = f"""
import os, signal, sys
sys.path.insert(0, {scripts!r})
import one_line_errors as o
o.on_signals("writer")
def half(f):
    f.write("half\\n")
    f.flush()
    os.kill(os.getpid(), signal.SIGTERM)
o.write_text({target!r}, half)
"""
with open(target, "w") as f:
    f.write("the old table\n")
p = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True)
check(f"SIGTERM mid-write: exit 143, got {p.returncode}: {p.stderr[:200]}", p.returncode == 143)
check(f"SIGTERM mid-write: one line: {p.stderr!r}", p.stderr.count("\n") == 1 and "interrupted by SIGTERM" in p.stderr)
check("SIGTERM mid-write: the old target kept whole", open(target).read() == "the old table\n")
check(f"SIGTERM mid-write: no stray temporary: {os.listdir(d)}", os.listdir(d) == ["table.md"])

os.unlink(target)
os.rmdir(d)
if fails:
    sys.exit(f"atomic_write: {fails} check(s) failed")
print("atomic_write: all checks passed")
