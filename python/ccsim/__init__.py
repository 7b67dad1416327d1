"""ccsim from Python: predict collective communication on a GPU topology.

Every function runs ccsim's own command line in this process (the C++ module _ccsim, with the GIL released
while it simulates) and reads its --format json output, so a result here is the CLI's result for the same
flags, and bad input raises ccsim.Error with the CLI's one-line message (what `ccsim` prints after "ccsim: ").

    import ccsim
    t = ccsim.topology("dgx1")
    rows = ccsim.predict(t, op="allreduce", algo="ring", sizes=("1M", "128M"))
    for r in rows: print(r.size, r.busbw_GBps)

Keyword arguments beyond the named ones are the CLI's long flags with "_" for "-": ring=[0, 3, 2, 1],
nccl_algo="ring", p2p="off", datatype="half", stepfactor=4, eager=True (a flag), None/False = not given.
"""
import json
import math
import operator
import os
import re
import pathlib
import sys
import tempfile
import weakref

from ._ccsim import Error, data_dir
from ._ccsim import Machine as _Machine
from ._ccsim import run_cli as _run_cli

Error.__module__ = "ccsim"  # shown as ccsim.Error in tracebacks

__all__ = ["Error", "Topology", "Prediction", "Comparison", "Row", "topology", "predict", "explain", "rings", "compare",
           "scenario", "timeline", "cli", "data_dir"]


def cli(*args):
    """Runs `ccsim ARGS...` in this process and returns what it prints (text); raises Error like the CLI."""
    return _run_cli([str(a) for a in args])


def _json_cli(*args):
    try:
        return json.loads(cli(*args))
    except Error as e:
        # A keyword the command has no flag for reaches the CLI as "--name": say it was the keyword.
        text = str(e)
        unknown = [w for w in text.partition("not expected:")[2].split() if w.startswith("--") and w in args]
        if not unknown:
            raise
        # The CLI's "did you mean --ring?" in the caller's words: ring=.
        text = re.sub(r"did you mean --([\w-]+)\?", lambda m: f"did you mean {m.group(1).replace('-', '_')}=?", text)
        raise Error(f"{text}; {unknown[0][2:].replace('-', '_')}= became {unknown[0]}, a flag this command does not have") from None


def _value(v):
    """A flag's value as the CLI spells it: GPU lists "0,3,2,1", several rings "0 3 2 1|0 1 3 2"."""
    if isinstance(v, (list, tuple)):
        if v and all(isinstance(x, (list, tuple)) for x in v):
            return "|".join(" ".join(str(g) for g in ring) for ring in v)
        return ",".join(str(x) for x in v)
    return str(v)


def _flags(flags, reserved=("format", "output")):
    args = []
    for key, v in flags.items():
        if key in reserved:
            raise Error(f"{key}=: the Python API reads the CLI's json itself; write the result from Python instead")
        if v is None or v is False:
            continue
        # True is a flag (eager=True); "--eager=true" keeps it one word, so an option that wants a value
        # (root=True) is refused as "--root: 'true' is not a whole number" instead of taking the next flag.
        flag = "--" + key.replace("_", "-")
        args.append(flag + "=true" if v is True else flag)
        if v is not True:
            args.append(_value(v))
    return args


def _non_finite(obj, where=""):
    """(key path, value) of the first NaN or infinite number in obj (JSON has neither), or None."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return where or "the value", obj
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, (list, tuple)) else ()
    for k, v in items:
        found = _non_finite(v, f"{where}.{k}" if where and isinstance(k, str) else f"{where}[{k}]" if where else str(k))
        if found:
            return found
    return None


def _dict_file(obj, what):
    """A dict as the JSON file the CLI reads; NaN and infinity, which JSON cannot carry, are refused by key."""
    bad = _non_finite(obj)
    if bad:
        raise Error(f"{what}: {bad[0]} is {bad[1]!r}, not a finite number (JSON has no NaN or infinity)")
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in str(obj.get("name", what)))
    return _Scratch((name or what) + ".json", json.dumps(obj))


def _from_dict(scratch, what, call):
    """Runs call(); an error naming the scratch file of a dict (or a trace's text) names that instead: the user
    wrote no file, and the scratch file is gone by the time they read the message."""
    try:
        return call()
    except Error as e:
        if scratch is None or scratch.path not in str(e):
            raise
        raise Error(str(e).replace(scratch.path, f"({what})")) from None


def _gpu_keyword(call):
    """Runs call(); the CLI's words for its --gpu flag become this module's gpu= argument (a Python user has no
    flag to give)."""
    try:
        return call()
    except Error as e:
        text = str(e)
        if "--gpu" not in text:
            raise
        text = text.replace("give --gpu KIND", "give gpu=KIND (ccsim.topology(path, gpu=KIND))")
        raise Error(text.replace("--gpu:", "gpu argument:").replace("--gpu", "gpu=")) from None


class _Scratch:
    """Files handed to the CLI (a topology or scenario given as a dict, a trace given as text), removed with
    the object that needs them."""

    def __init__(self, name, text):
        self.dir = tempfile.mkdtemp(prefix="ccsim-")
        self.path = os.path.join(self.dir, name)
        with open(self.path, "w", encoding="utf-8") as f:
            f.write(text)
        weakref.finalize(self, _Scratch._remove, self.dir, self.path)

    @staticmethod
    def _remove(d, p):
        try:
            os.unlink(p)
            os.rmdir(d)
        except OSError:
            pass


class Topology:
    """A machine: a shipped name ("dgx1"), a generator spec ("machine:gpu=h100,nodes=4,nics=8x400G"),
    a file (ccsim JSON, nvidia-smi topo -m, NCCL XML, rocm-smi, amd-smi) or its text (a str of several lines,
    or bytes), or a dict in ccsim's topology JSON."""

    def __init__(self, spec, gpu=None):
        self._scratch = None
        what = "the topology dict"
        if isinstance(spec, (bytes, bytearray)) or (isinstance(spec, str) and "\n" in spec):
            # The text of a file (an nvidia-smi topo -m or rocm-smi output pasted into a notebook cell, a file read
            # with open(...).read()), as compare takes a trace's text: read as the CLI reads that file.
            if isinstance(spec, (bytes, bytearray)):
                spec = spec.decode("utf-8", errors="replace")
            text_file = _Scratch("topology.txt", spec)
            what = "the topology text"
            if gpu is None:
                self._scratch = text_file
                spec = text_file.path
            else:
                self._scratch = _from_dict(text_file, what, lambda: _Scratch(
                    "topology.json", _gpu_keyword(lambda: cli("topo", "import", text_file.path, "--gpu", gpu))))
                spec = self._scratch.path
                self._text_file = text_file  # the JSON's link sources name it: kept as long as the topology
        elif gpu is not None:
            # A file that does not name its GPU (an nvidia-smi topo -m paste without nvidia-smi -L) with the kind
            # given, as the CLI's --gpu: imported once into ccsim JSON, which the CLI then reads for every call.
            if not isinstance(spec, (str, os.PathLike)):
                raise Error(f"topology: gpu= goes with a topology file, not a {type(spec).__name__}")
            path = os.fspath(spec)
            if not os.path.isfile(path):
                raise Error(f"topology: gpu= names the GPU of a file that does not (nvidia-smi topo -m, NCCL XML, "
                            f"rocm-smi, amd-smi), but {path!r} is no file: a shipped name or a machine: spec names "
                            f"its GPU itself (machine:gpu=KIND)")
            name = "".join(c if c.isalnum() or c in "-_." else "_" for c in os.path.basename(path)) or "topology"
            self._scratch = _Scratch(name + ".json", _gpu_keyword(lambda: cli("topo", "import", path, "--gpu", gpu)))
            spec = self._scratch.path
        elif isinstance(spec, dict):
            self._scratch = _dict_file(spec, "topology")
            spec = self._scratch.path
        elif isinstance(spec, os.PathLike):
            spec = os.fspath(spec)
        elif not isinstance(spec, str):
            raise Error(f"topology: expected a name, spec, path, a file's text or a dict, got {type(spec).__name__}")
        self.spec = spec
        self._what = what
        self._machine = _from_dict(self._scratch, what, lambda: _gpu_keyword(lambda: _Machine(spec)))
        about = self._machine.about()
        self.name, self.description, self.origin = about["name"], about["description"], about["origin"]
        self.gpu_kind = about["gpu_kind"]

    @property
    def gpus(self):
        """Number of GPUs."""
        return self._machine.gpus()

    @property
    def nodes(self):
        """Every node: name, kind (gpu, nvswitch, pcie_switch, cpu, nic, net_switch) and GPU index (-1 if none)."""
        return self._machine.nodes()

    @property
    def links(self):
        """Every full-duplex link: its two node names, type, lanes, bandwidth per direction (all lanes), latency,
        source, and host_staged (a GPU port whose copies go through host memory, NCCL's SHM transport)."""
        return self._machine.links()

    def route(self, a, b):
        """The route from GPU a to GPU b: node path, link types, hops, bottleneck (GB/s) and latency (us)."""
        return self._machine.route(a, b)

    def to_dot(self):
        """Graphviz DOT text, as `ccsim topo show --dot`."""
        return cli("topo", "show", "--dot", self.spec)

    def to_json(self):
        """The topology in ccsim's JSON file format (a dict)."""
        return json.loads(self._machine.json())

    def __repr__(self):
        given = "(the topology text)" if self._what == "the topology text" else repr(self.spec)
        return f"ccsim.topology({given})  # {self.name}, {self.gpus} GPUs"


def topology(spec="dgx1", gpu=None):
    """ccsim.topology("dgx1") / ("machine:gpu=h100,nodes=4,nics=8x400G") / (path) / (the file's text) / (dict)
    -> Topology. gpu="h100": the GPU kind of a file that does not name it (nvidia-smi topo -m, NCCL XML, ...), as
    --gpu."""
    if isinstance(spec, Topology):
        if gpu is not None:
            raise Error("topology: gpu= goes with a topology file, not a Topology")
        return spec
    return Topology(spec, gpu)


def _topo_spec(topo):
    """The topology and the spec the CLI reads; hold the Topology while the CLI runs (a dict's file lives
    as long as it does)."""
    t = topology(topo)
    return t, t.spec


class Row(dict):
    """One size of a prediction: the CLI table's columns (size, count, type, redop, root, time_us,
    algbw_GBps, busbw_GBps) plus time_ps and, for models that choose, `choice` (algo, proto, channels, ...).
    Read as r.busbw_GBps or r["busbw_GBps"]."""

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None


class Prediction(list):
    """The rows of a sweep, with the run's header as attributes (topology, model, algo, ranks, placements,
    model_detail, ...) and the CLI's whole JSON document as .json."""

    def __init__(self, doc):
        self.json = doc
        header = {k: v for k, v in doc.items() if k != "rows"}
        super().__init__(Row(size=r["size"], count=r["count"], type=doc["datatype"], redop=doc["redop"],
                             root=doc["root"], **{k: v for k, v in r.items() if k not in ("size", "count")})
                         for r in doc["rows"])
        for k, v in header.items():
            setattr(self, k, v)

    def to_pandas(self):
        """A pandas DataFrame, one row per size; the model's choice flattened into choice_* columns."""
        return _pandas().DataFrame([_flat_row(r) for r in self])


def _pandas():
    try:
        import pandas  # optional: ccsim itself does not need it
    except ImportError as e:
        # A pyenv or venv python3 first on PATH often lacks the pandas Debian installed for /usr/bin/python3.
        raise ModuleNotFoundError(
            f"to_pandas() needs pandas, which this Python ({sys.executable}) cannot import: "
            "install it for this interpreter (python3 -m pip install pandas), or run /usr/bin/python3 "
            "with Debian's python3-pandas", name="pandas") from e
    return pandas


def _flat_row(r, **first):
    """One JSON row as a flat dict: the model's choice as choice_* columns."""
    d = dict(first)
    d.update({k: v for k, v in r.items() if k != "choice"})
    for k, v in (r.get("choice") or {}).items():
        d["choice_" + k] = v
    return d


class Comparison(dict):
    """compare's JSON document (the CLI's keys: rows, summary, ...; a file of several runs: kind and runs), with
    .to_pandas(): one row per measured size, measured beside predicted, a run column when the file held several."""

    def to_pandas(self):
        if self.get("kind") == "ccsim-compare-summary":  # several files or a folder: one row per run, its verdict
            return _pandas().DataFrame(self["runs"])
        if "runs" in self:
            return _pandas().DataFrame([_flat_row(r, run=i) for i, run in enumerate(self["runs"], 1) for r in run["rows"]])
        return _pandas().DataFrame([_flat_row(r) for r in self["rows"]])


def _size(v):
    """One size as the CLI's -b/-e spell it: "1M", 1048576, a numpy integer, or a whole float such as 1e6."""
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        raise Error(f"sizes: {v!r} is not a size")
    if isinstance(v, float):
        if not math.isfinite(v) or not v.is_integer():
            raise Error(f"sizes: {v!r} is not a whole number of bytes")
        return str(int(v))
    try:
        return str(operator.index(v))  # int, numpy.int64, ...
    except TypeError:
        raise Error(f"sizes: {v!r} is not a size (give bytes as a number or a string such as \"1M\")") from None


def _size_flags(sizes):
    if sizes is None:
        return []
    if isinstance(sizes, (list, tuple)):
        if len(sizes) != 2:
            raise Error(f"sizes: give one size or (smallest, largest) as the CLI's -b/-e, got {sizes!r}")
        return ["-b", _size(sizes[0]), "-e", _size(sizes[1])]
    one = _size(sizes)
    return ["-b", one, "-e", one]


def _predict_args(topo, op, algo, sizes, model, flags):
    t, spec = _topo_spec(topo)
    # None leaves a flag out, named arguments included: op=None is the CLI's default op, not an op "None".
    named = {"op": op, "model": model, "algo": algo}
    return t, ["--topo", spec] + _size_flags(sizes) + _flags(named) + _flags(flags)


def _size_keyword(call, keyword, sizes):
    """Runs call(); the CLI's -b/--minbytes and -e/--maxbytes, which a Python caller never typed, become the
    keyword they came from: size=, sizes= (one size for both) or sizes[0] / sizes[1]."""
    try:
        return call()
    except Error as e:
        text = str(e)
        if "-b/--minbytes" not in text and "-e/--maxbytes" not in text:
            raise
        pair = isinstance(sizes, (list, tuple))
        lo, hi = (f"{keyword}[0]", f"{keyword}[1]") if pair else (f"{keyword}=", f"{keyword}=")
        if sizes is None:  # the CLI's own default sizes: the keyword that sets them
            lo = hi = f"{keyword}= (default 8..128M)"
        raise Error(text.replace("-b/--minbytes", lo).replace("-e/--maxbytes", hi)) from None


def predict(topo="dgx1", op="allreduce", algo=None, sizes=None, model="fifo", **flags):
    """Predicts a sweep as `ccsim --topo T --op OP --algo A -b LO -e HI --model M ... --format json`.

    sizes: one size ("1M", 1048576) or (smallest, largest); the CLI's default 8..128M when None; every
    factor of 2 between (stepfactor=, stepbytes= as -f/-i). Returns a Prediction (a list of Row)."""
    t, args = _predict_args(topo, op, algo, sizes, model, flags)
    return Prediction(_size_keyword(lambda: _json_cli(*args, "--format", "json"), "sizes", sizes))


def timeline(topo="dgx1", op="allreduce", algo=None, size="1M", model="fifo", **flags):
    """The Chrome trace-event document (a dict) of one size, as `ccsim ... --timeline FILE`."""
    out = _Scratch("timeline.json", "")
    t, args = _predict_args(topo, op, algo, size, model, flags)
    _size_keyword(lambda: _run_cli(args + ["--timeline", out.path, "--format", "json"]), "size", size)
    with open(out.path, encoding="utf-8") as f:
        return json.load(f)


def explain(op="allreduce", **flags):
    """`ccsim explain --op OP ... --format json`: alpha-beta formulas of the op's algorithms (algo= one of
    them), on an ideal crossbar (ranks=, alpha=, bw=) or a topology (topo=)."""
    t = None
    if isinstance(flags.get("topo"), (Topology, dict, os.PathLike)):
        t, flags["topo"] = _topo_spec(flags["topo"])
    return _json_cli("explain", "--op", op, *_flags(flags), "--format", "json")


def rings(topo="dgx1", **flags):
    """`ccsim rings --topo T ... --format json`: ring orders ranked (top=, channels=, explain=[0, 1, ...])."""
    t, spec = _topo_spec(topo)
    return _json_cli("rings", "--topo", spec, *_flags(flags), "--format", "json")


def compare(topo, trace, **flags):
    """`ccsim compare --topo T --trace FILE --format json`: every row of a measured nccl-tests output
    predicted. `trace` is a path or the output's text; a list of paths or a folder gives the CLI's summary over
    many files (kind "ccsim-compare-summary": a verdict per run against healthy= percent, "exit_status")."""
    t, spec = _topo_spec(topo)
    if isinstance(trace, (list, tuple)):
        if not trace or not all(isinstance(p, (str, os.PathLike)) for p in trace):
            raise Error("compare: a list of traces holds paths (str or os.PathLike), at least one")
        return Comparison(_json_cli("compare", "--topo", spec, "--trace", *[os.fspath(p) for p in trace], "--summary",
                                    *_flags(flags), "--format", "json"))
    scratch = None
    if isinstance(trace, os.PathLike):
        trace = os.fspath(trace)
    text = isinstance(trace, (bytes, bytearray))
    if text:  # a log read with open(..., "rb") or from a pipe: its content, as the CLI reads the file
        trace = trace.decode("utf-8", errors="replace")
    if not isinstance(trace, str):
        raise Error(f"compare: trace is a path or the output's text, not a {type(trace).__name__}")
    if text or "\n" in trace:
        scratch = _Scratch("trace.txt", trace)
        trace = scratch.path
    doc = _from_dict(scratch, "the trace text", lambda: _json_cli("compare", "--topo", spec, "--trace", trace,
                                                                 *_flags(flags), "--format", "json"))
    if scratch is not None and isinstance(doc, dict) and doc.get("trace") == scratch.path:
        doc["trace"] = "(the trace text)"  # the scratch file is gone once this returns
    return Comparison(doc)


def scenario(dict_or_path, **flags):
    """`ccsim scenario FILE --format json`: a training step (docs/training-scenarios.md). A dict is the file's
    content; topo= runs it on another machine. Its model is the one predict() builds for the same flags: under
    model="nccl" the shipped calibration unless params= names another file (params="none": the bare model); the
    result's ["scenario"]["network_params"] names the set applied."""
    scratch = None
    if isinstance(dict_or_path, dict):
        scratch = _dict_file(dict_or_path, "scenario")
        path = scratch.path
    else:
        path = os.fspath(dict_or_path)
    t = None
    if isinstance(flags.get("topo"), (Topology, dict, os.PathLike)):
        t, flags["topo"] = _topo_spec(flags["topo"])
    return _from_dict(scratch, "the scenario dict", lambda: _json_cli("scenario", path, *_flags(flags), "--format", "json"))
