"""The house rules for the plot scripts: bad input is one line naming the file or flag, exit 2, never a traceback;
an output appears whole or not at all (written to a temporary beside it, renamed once complete), also when the run
is interrupted (SIGINT, SIGTERM: the temporaries are removed, one line, exit 128 + the signal)."""
import argparse
import os
import signal
import sys

_temps = set()  # temporaries being written; removed on an error or a signal
_inputs = []  # files the script reads (reading()): named in a refusal of their content, never overwritten


def reading(path):
    """Notes `path` as an input, then returns it: a refusal of malformed content names it (not argv[1], which may be a
    flag), and save_figures will not write over it (`plot_compare.py c.json c.json` replaced the data by its PNG)."""
    _inputs.append(path)
    return path


def _input_name():
    if _inputs:
        return _inputs[-1]
    files = [a for a in sys.argv[1:] if not a.startswith("-") and os.path.isfile(a)]
    return files[0] if files else "input"


def _on_signal(prog):
    def handler(signum, _frame):
        for t in list(_temps):
            try:
                os.unlink(t)
            except OSError:
                pass
        name = signal.Signals(signum).name
        os.write(2, f"{prog}: interrupted by {name}, nothing written\n".encode())
        os._exit(128 + signum)  # no traceback, no half-written output left behind

    return handler


def on_signals(prog):
    """Call first thing (before importing matplotlib, which takes a while): SIGINT/SIGTERM end in one line."""
    for s in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(s) != signal.SIG_IGN:  # a signal the caller ignores (nohup, a background job) stays so
            signal.signal(s, _on_signal(prog))


class Parser(argparse.ArgumentParser):
    """argparse, but a bad flag or a missing argument is one line (usage is in --help), exit 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def save_figures(fig, paths, **kwargs):
    """Saves fig to every path, all or none: each to a temporary in the same folder, then renamed together with
    SIGINT/SIGTERM held back, so an interruption or a failure never leaves a partial or a truncated file."""
    done = []
    for path in paths:
        for src in _inputs:
            try:
                same = os.path.samefile(path, src)
            except OSError:  # the output does not exist yet (or the input went away): not the same file
                same = False
            if same:
                raise SystemExit(f"{os.path.splitext(os.path.basename(sys.argv[0]))[0]}: {path}: is the input {src}; give the picture a file of its own")
    try:
        for path in paths:
            folder, name = os.path.split(path)
            stem, ext = os.path.splitext(name)
            tmp = os.path.join(folder, f".{stem}.tmp{os.getpid()}{ext}")
            _temps.add(tmp)
            # The format from the name's extension; a name without a known one (`compare --plot out`, whose
            # scratch name ends in a random suffix) gets PNG under the name given, not matplotlib's refusal.
            fmt = ext.lstrip(".").lower()
            fmt = fmt if fmt in fig.canvas.get_supported_filetypes() else "png"
            try:
                fig.savefig(tmp, format=fmt, **kwargs)
            except OSError as e:  # name the file asked for, not the temporary
                raise OSError(e.errno, e.strerror, path) from None
            done.append((tmp, path))
        for _, path in done:  # a rename that would fail must not come after one that published
            if os.path.isdir(path):
                raise IsADirectoryError(21, "Is a directory", path)
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        try:
            for tmp, path in done:
                try:
                    os.replace(tmp, path)
                except OSError as e:
                    raise OSError(e.errno, e.strerror, path) from None
                _temps.discard(tmp)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
    finally:
        for t in list(_temps):
            try:
                os.unlink(t)
            except OSError:
                pass
            _temps.discard(t)


def write_text(path, text, fsync=False):
    """Writes text to path whole or not at all: a temporary in the same folder (so the rename stays on one file
    system), flushed (and fsync'd when asked), then os.replace; on any error, or a signal once on_signals is
    installed, the temporary is removed and path keeps what it had. `text` may instead be a callable that writes
    to the open file it is given (json.dump, say): one that fails half way leaves nothing behind either."""
    folder, name = os.path.split(path)
    tmp = os.path.join(folder, f".{name}.tmp{os.getpid()}")
    _temps.add(tmp)
    try:
        with open(tmp, "w") as f:
            if callable(text):
                text(f)
            else:
                f.write(text)
            f.flush()
            if fsync:
                os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if os.path.lexists(tmp):
            try:
                os.unlink(tmp)
            except OSError:
                pass
        _temps.discard(tmp)


def run(prog, main):
    try:
        main()
    except SystemExit as e:  # sys.exit("message"): the scripts' own one-line refusals, exit 2 as the house rule
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
            sys.exit(2)
        raise
    except OSError as e:  # a missing input, a directory, an unwritable output
        print(f"{prog}: {e.filename}: {e.strerror}", file=sys.stderr)
        sys.exit(2)
    except ValueError as e:  # json.JSONDecodeError and bad numbers in the input
        print(f"{prog}: {_input_name()}: not ccsim output: {e}", file=sys.stderr)
        sys.exit(2)
    except (KeyError, IndexError, TypeError, AttributeError, ZeroDivisionError) as e:  # valid JSON/CSV of another shape
        # ('[]' for an object, an event without "cat", a string for a number): one line, not a traceback.
        print(f"{prog}: {_input_name()}: not ccsim output ({type(e).__name__}: {e})", file=sys.stderr)
        sys.exit(2)
