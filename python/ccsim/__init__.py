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
import os
import pathlib
import tempfile
import weakref

from ._ccsim import Error, data_dir
from ._ccsim import Machine as _Machine
from ._ccsim import run_cli as _run_cli

Error.__module__ = "ccsim"  # shown as ccsim.Error in tracebacks

__all__ = ["Error", "Topology", "Prediction", "Row", "topology", "predict", "explain", "rings", "compare",
           "scenario", "timeline", "cli", "data_dir"]


def cli(*args):
    """Runs `ccsim ARGS...` in this process and returns what it prints (text); raises Error like the CLI."""
    return _run_cli([str(a) for a in args])


def _json_cli(*args):
    return json.loads(cli(*args))


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
        args.append("--" + key.replace("_", "-"))
        if v is not True:
            args.append(_value(v))
    return args


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
    a file (ccsim JSON, nvidia-smi topo -m, NCCL XML, rocm-smi), or a dict in ccsim's topology JSON."""

    def __init__(self, spec, gpu=None):
        self._scratch = None
        if gpu is not None:
            # A file that does not name its GPU (an nvidia-smi topo -m paste without nvidia-smi -L) with the kind
            # given, as the CLI's --gpu: imported once into ccsim JSON, which the CLI then reads for every call.
            if not isinstance(spec, (str, os.PathLike)):
                raise Error(f"topology: gpu= goes with a topology file, not a {type(spec).__name__}")
            path = os.fspath(spec)
            name = "".join(c if c.isalnum() or c in "-_." else "_" for c in os.path.basename(path)) or "topology"
            self._scratch = _Scratch(name + ".json", cli("topo", "import", path, "--gpu", gpu))
            spec = self._scratch.path
        elif isinstance(spec, dict):
            name = "".join(c if c.isalnum() or c in "-_." else "_" for c in str(spec.get("name", "topology")))
            self._scratch = _Scratch((name or "topology") + ".json", json.dumps(spec))
            spec = self._scratch.path
        elif isinstance(spec, os.PathLike):
            spec = os.fspath(spec)
        elif not isinstance(spec, str):
            raise Error(f"topology: expected a name, spec, path or dict, got {type(spec).__name__}")
        self.spec = spec
        self._machine = _Machine(spec)
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
        return f"ccsim.topology({self.spec!r})  # {self.name}, {self.gpus} GPUs"


def topology(spec="dgx1", gpu=None):
    """ccsim.topology("dgx1") / ("machine:gpu=h100,nodes=4,nics=8x400G") / (path) / (dict) -> Topology.
    gpu="h100": the GPU kind of a file that does not name it (nvidia-smi topo -m, NCCL XML, ...), as --gpu."""
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
        import pandas  # optional: ccsim itself does not need it

        flat = []
        for r in self:
            d = {k: v for k, v in r.items() if k != "choice"}
            for k, v in (r.get("choice") or {}).items():
                d["choice_" + k] = v
            flat.append(d)
        return pandas.DataFrame(flat)


def _size_flags(sizes):
    if sizes is None:
        return []
    if isinstance(sizes, (int, str)):
        return ["-b", str(sizes), "-e", str(sizes)]
    if isinstance(sizes, (list, tuple)) and len(sizes) == 2:
        return ["-b", str(sizes[0]), "-e", str(sizes[1])]
    raise Error(f"sizes: give one size or (smallest, largest) as the CLI's -b/-e, got {sizes!r}")


def _predict_args(topo, op, algo, sizes, model, flags):
    t, spec = _topo_spec(topo)
    args = ["--topo", spec, "--op", op, "--model", model] + _size_flags(sizes)
    if algo is not None:
        args += ["--algo", algo]
    return t, args + _flags(flags)


def predict(topo="dgx1", op="allreduce", algo=None, sizes=None, model="fifo", **flags):
    """Predicts a sweep as `ccsim --topo T --op OP --algo A -b LO -e HI --model M ... --format json`.

    sizes: one size ("1M", 1048576) or (smallest, largest); the CLI's default 8..128M when None; every
    factor of 2 between (stepfactor=, stepbytes= as -f/-i). Returns a Prediction (a list of Row)."""
    t, args = _predict_args(topo, op, algo, sizes, model, flags)
    return Prediction(_json_cli(*args, "--format", "json"))


def timeline(topo="dgx1", op="allreduce", algo=None, size="1M", model="fifo", **flags):
    """The Chrome trace-event document (a dict) of one size, as `ccsim ... --timeline FILE`."""
    out = _Scratch("timeline.json", "")
    t, args = _predict_args(topo, op, algo, size, model, flags)
    _run_cli(args + ["--timeline", out.path, "--format", "json"])
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
    predicted. `trace` is a path or the output's text."""
    t, spec = _topo_spec(topo)
    scratch = None
    if isinstance(trace, os.PathLike):
        trace = os.fspath(trace)
    if "\n" in trace:
        scratch = _Scratch("trace.txt", trace)
        trace = scratch.path
    return _json_cli("compare", "--topo", spec, "--trace", trace, *_flags(flags), "--format", "json")


def scenario(dict_or_path, **flags):
    """`ccsim scenario FILE --format json`: a training step (docs/training-scenarios.md). A dict is the file's
    content; topo= runs it on another machine."""
    scratch = None
    if isinstance(dict_or_path, dict):
        scratch = _Scratch("scenario.json", json.dumps(dict_or_path))
        path = scratch.path
    else:
        path = os.fspath(dict_or_path)
    t = None
    if isinstance(flags.get("topo"), (Topology, dict, os.PathLike)):
        t, flags["topo"] = _topo_spec(flags["topo"])
    return _json_cli("scenario", path, *_flags(flags), "--format", "json")
