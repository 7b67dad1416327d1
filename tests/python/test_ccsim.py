"""The Python module against the binary: for the same inputs, ccsim.<function>(...) returns what
`ccsim ... --format json` prints, and bad input raises ccsim.Error with the line the binary prints after
"ccsim: " (and exits 2 for). Run by ctest as python_api with PYTHONPATH=build/python and CCSIM=build/ccsim."""
import json
import os
import pathlib
import subprocess
import sys
import threading

import pytest

import ccsim

CCSIM = os.environ["CCSIM"]
DATA = pathlib.Path(ccsim.data_dir())
TRACE = DATA / "models" / "traces" / "dgx1-v100-8gpu-allreduce-konnase.txt"


def cli_json(*args):
    out = subprocess.run([CCSIM, *map(str, args)], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def cli_error(*args):
    p = subprocess.run([CCSIM, *map(str, args)], capture_output=True, text=True)
    assert p.returncode == 2, (args, p.returncode, p.stdout)
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("ccsim: "), p.stderr
    return lines[0][len("ccsim: "):]


def test_data_dir_is_the_tree_the_binary_reads():
    assert (DATA / "topologies" / "dgx1.json").is_file()


@pytest.mark.parametrize("kwargs,flags", [
    (dict(topo="dgx1", sizes=("8", "1M")), ["--topo", "dgx1", "-b", "8", "-e", "1M"]),
    (dict(topo="dgx1", algo="ring", ring=[0, 1, 2, 3, 4, 5, 6, 7], sizes="4M", datatype="half"),
     ["--topo", "dgx1", "--algo", "ring", "--ring", "0,1,2,3,4,5,6,7", "-b", "4M", "-e", "4M", "-d", "half"]),
    (dict(topo="hgx-h100", model="nccl", sizes=("1K", "64M"), stepfactor=8),
     ["--topo", "hgx-h100", "--model", "nccl", "-b", "1K", "-e", "64M", "-f", "8"]),
    (dict(topo="machine:gpu=h100,nodes=2,nics=8x400G", model="nccl", nccl_algo="ring", sizes="16M"),
     ["--topo", "machine:gpu=h100,nodes=2,nics=8x400G", "--model", "nccl", "--nccl-algo", "ring", "-b", "16M", "-e", "16M"]),
    (dict(topo="pcie-gen3-8gpu", op="allgather", p2p="off", sizes="1M", eager=True),
     ["--topo", "pcie-gen3-8gpu", "--op", "allgather", "--p2p", "off", "-b", "1M", "-e", "1M", "--eager"]),
    (dict(topo="dgx1", rings=[[0, 3, 2, 1, 5, 6, 7, 4], [0, 1, 3, 2, 6, 7, 5, 4]], sizes="8M"),
     ["--topo", "dgx1", "--rings", "0 3 2 1 5 6 7 4|0 1 3 2 6 7 5 4", "-b", "8M", "-e", "8M"]),
    (dict(topo="dgx1", op="broadcast", algo="binomial", root=3, sizes="2M"),
     ["--topo", "dgx1", "--op", "broadcast", "--algo", "binomial", "-r", "3", "-b", "2M", "-e", "2M"]),
])
def test_predict_is_the_cli_json(kwargs, flags):
    got = ccsim.predict(**kwargs)
    want = cli_json(*flags, "--format", "json")
    assert got.json == want
    assert len(got) == len(want["rows"]) > 0
    for row, w in zip(got, want["rows"]):
        # every column of the CLI table, with the header's type/redop/root on each row
        assert (row.size, row.count, row.time_us, row.algbw_GBps, row.busbw_GBps) == \
            (w["size"], w["count"], w["time_us"], w["algbw_GBps"], w["busbw_GBps"])
        assert (row.type, row.redop, row.root) == (want["datatype"], want["redop"], want["root"])
        assert row.get("choice") == w.get("choice")
    assert got.topology == want["topology"] and got.placements == want["placements"]


def test_model_choice_is_on_every_row():
    rows = ccsim.predict("dgx1", model="nccl", sizes=("1K", "1G"))
    assert all(r.choice["algo"] in ("ring", "tree") and r.choice["proto"] in ("LL", "LL128", "Simple") for r in rows)


def test_a_flag_set_in_one_call_does_not_leak_into_the_next():
    ccsim.predict("pcie-gen3-8gpu", sizes="1M", p2p="off")
    assert ccsim.predict("pcie-gen3-8gpu", sizes="1M").json == \
        cli_json("--topo", "pcie-gen3-8gpu", "-b", "1M", "-e", "1M", "--format", "json")


def test_topology_from_dict_path_and_name_predict_alike():
    doc = json.loads((DATA / "topologies" / "dgx1.json").read_text())
    by_name = ccsim.predict("dgx1", sizes="1M").json
    for t in (ccsim.topology(doc), ccsim.topology(DATA / "topologies" / "dgx1.json")):
        got = ccsim.predict(t, sizes="1M").json
        assert {k: v for k, v in got.items() if k != "topology_origin"} == \
            {k: v for k, v in by_name.items() if k != "topology_origin"}


def test_topology_file_without_its_gpu_takes_gpu_as_the_cli_takes_gpu_flag():
    # An nvidia-smi topo -m paste without nvidia-smi -L: gpu= is the CLI's --gpu (user trial 2: the error asked
    # for --gpu KIND, which ccsim.topology had no argument for; user trial 6: the message named the CLI flag, a
    # Python user has only the gpu= argument).
    paste = DATA / "tests" / "data" / "import" / "h100-8gpu-nv18-nonic-topo-m-thunderkittens.txt"
    for call in (lambda: ccsim.topology(paste), lambda: ccsim.predict(str(paste), sizes="1M")):
        with pytest.raises(ccsim.Error) as e:
            call()
        assert "give gpu=KIND (ccsim.topology(path, gpu=KIND))" in str(e.value) and "--gpu" not in str(e.value)
    with pytest.raises(ccsim.Error) as e:
        ccsim.topology(paste, gpu="h999")
    assert str(e.value).startswith("gpu argument: unknown gpu 'h999'") and "--gpu" not in str(e.value)
    t = ccsim.topology(paste, gpu="h100")
    assert t.gpu_kind == "h100" and t.gpus == 8
    want = cli_json("--topo", paste, "--gpu", "h100", "-b", "1M", "-e", "1M", "--format", "json")
    got = ccsim.predict(t, sizes="1M").json
    assert [r["time_us"] for r in got["rows"]] == [r["time_us"] for r in want["rows"]]


def test_topology_from_the_text_of_a_file_predicts_as_the_file():
    # User trial 10: a student pasted the `nvidia-smi topo -m` output into a notebook cell and passed the string; it
    # was taken for a shipped name or path and refused with the whole text quoted. The text is read as the file is.
    paste = DATA / "tests" / "data" / "import" / "h100-8gpu-nv18-nonic-topo-m-thunderkittens.txt"
    want = cli_json("--topo", paste, "--gpu", "h100", "-b", "1M", "-e", "1M", "--format", "json")
    for text in (paste.read_text(), paste.read_bytes(), paste.read_text().replace("\n", "\r\n")):
        t = ccsim.topology(text, gpu="h100")
        assert t.gpus == 8 and t.gpu_kind == "h100"
        got = ccsim.predict(t, sizes="1M").json
        assert [r["time_us"] for r in got["rows"]] == [r["time_us"] for r in want["rows"]]
    # A text that names its GPU needs no gpu=; a text without names the text, not the scratch file.
    named = "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)\n" + paste.read_text()
    assert ccsim.topology(named).gpu_kind == "h100"
    with pytest.raises(ccsim.Error) as e:
        ccsim.topology(paste.read_text())
    assert str(e.value).startswith("(the topology text): the topo -m matrix does not say which GPU it is: give gpu=KIND")
    with pytest.raises(ccsim.Error) as e:
        ccsim.topology("not a topology\nat all\n")
    assert str(e.value).startswith("(the topology text): not a topology")


def test_cli_runs_the_nccl_tests_front_end_as_the_binary_does():
    # User trial 10: ccsim.cli("all_reduce_perf", ...) (README: "any command's text output") was refused with
    # "The following argument was not expected: all_reduce_perf".
    args = ["all_reduce_perf", "--topo", "dgx1", "-g", "8", "-b", "1M", "-e", "4M", "-f", "2"]
    want = subprocess.run([CCSIM, *args], check=True, capture_output=True, text=True).stdout
    assert ccsim.cli(*args) == want
    with pytest.raises(ccsim.Error) as e:
        ccsim.cli("all_reduce_perf", "--topo", "dgx1", "-g", "9")
    assert str(e.value) == "9 ranks (-t 1 x -g 9) but topology dgx1-v100 has 8 GPUs (give a larger --topo)"


def test_a_p2p_level_does_not_outlive_its_call():
    # User trial 10: p2p_level="LOC" in one call left every later call at LOC (46993 us for 2054 on a DGX-1 at
    # 128 MiB), as it did for later points of `ccsim sweep` on the same thread.
    plain = ccsim.predict("dgx1", model="nccl", sizes="128M")[0].time_us
    loc = ccsim.predict("dgx1", model="nccl", sizes="128M", p2p_level="LOC")[0].time_us
    assert loc > 10 * plain
    assert ccsim.predict("dgx1", model="nccl", sizes="128M")[0].time_us == plain


def test_topology_graph_matches_topo_show():
    t = ccsim.topology("dgx1")
    show = subprocess.run([CCSIM, "topo", "show", "dgx1"], check=True, capture_output=True, text=True).stdout
    assert t.gpus == 8 and t.name == "dgx1-v100"
    assert f"links ({len(t.links)})" in show and f"nodes ({len(t.nodes)})" in show
    # DGX-1: 24 NVLink2 links over 16 GPU pairs (the topology's description), 8 of them doubled
    nvlink = [l for l in t.links if l["type"] == "nvlink2"]
    assert len(nvlink) == 16 and sum(l["lanes"] for l in nvlink) == 24
    for a, b in ((0, 1), (0, 3), (0, 5), (2, 7)):
        r = t.route(a, b)
        line = next(l for l in show.splitlines() if l.strip().startswith(f"gpu {a} -> gpu {b}:"))
        assert line.endswith("  " + " -> ".join(r["path"])), (line, r)
        assert f"{r['hops']} hop(s)" in line and "[" + "+".join(r["links"]) + "]" in line
    assert t.route(0, 3)["bottleneck_GBps"] == 50.0  # a doubled NVLink2 pair, 2 x 25 GB/s
    dot = subprocess.run([CCSIM, "topo", "show", "--dot", "dgx1"], check=True, capture_output=True, text=True).stdout
    assert t.to_dot() == dot


def test_explain_rings_compare_scenario_are_the_cli_json():
    assert ccsim.explain(op="allgather", ranks=16) == cli_json("explain", "--op", "allgather", "--ranks", "16", "--format", "json")
    assert ccsim.explain(algo="ring", topo="dgx1", size="1M") == \
        cli_json("explain", "--op", "allreduce", "--algo", "ring", "--topo", "dgx1", "--size", "1M", "--format", "json")
    assert ccsim.rings("dgx1", top=3, channels=2) == \
        cli_json("rings", "--topo", "dgx1", "--top", "3", "--channels", "2", "--format", "json")
    want = cli_json("compare", "--topo", "dgx1", "--trace", TRACE, "--format", "json")
    assert ccsim.compare("dgx1", TRACE) == want
    got = ccsim.compare("dgx1", TRACE.read_text())  # the trace's text: only the file it was read from differs
    assert got["trace"] != want["trace"] and {**got, "trace": ""} == {**want, "trace": ""}
    scen = DATA / "scenarios" / "lm300m_dgx1.json"
    want = cli_json("scenario", scen, "--format", "json")
    assert ccsim.scenario(scen) == want
    from_dict = ccsim.scenario(json.loads(scen.read_text()))
    assert _without_file(from_dict) == _without_file(want)


def test_scenario_takes_the_shipped_calibration_as_predict_does():
    # One model path for every command: model="nccl" applies models/params-nccl-default.json unless params= says
    # otherwise, in a scenario as in predict(); params="none" is the bare model in both.
    scen = DATA / "scenarios" / "lm300m_dgx1.json"
    default = ccsim.scenario(scen, model="nccl")
    assert default["scenario"]["network_params"] == "models/params-nccl-default.json (shipped default)"
    assert ccsim.predict("dgx1", model="nccl", sizes="1M").model == "nccl + " + default["scenario"]["network_params"]
    bare = ccsim.scenario(scen, model="nccl", params="none")
    assert "network_params" not in bare["scenario"]
    assert [s["comm_ms"] for s in bare["steps"]] != [s["comm_ms"] for s in default["steps"]]


def _without_file(doc):
    d = json.loads(json.dumps(doc))
    d["scenario"].pop("file", None)
    return d


def test_timeline_is_the_trace_the_cli_writes(tmp_path):
    path = tmp_path / "t.json"
    subprocess.run([CCSIM, "--topo", "dgx1", "-b", "1M", "-e", "1M", "--timeline", path], check=True, capture_output=True)
    got = ccsim.timeline("dgx1", size="1M")
    assert got == json.loads(path.read_text())
    assert any(e.get("ph") == "X" for e in got["traceEvents"])


# Each bad call beside the command line that means the same (predict passes --op and --model always).
@pytest.mark.parametrize("call,flags", [
    (lambda: ccsim.topology("no-such-machine"), ["--topo", "no-such-machine"]),
    (lambda: ccsim.predict("dgx1", algo="no_such_algo"), ["--topo", "dgx1", "--algo", "no_such_algo"]),
    (lambda: ccsim.predict("dgx1", ring=[0, 0, 1, 2, 3, 4, 5, 6]), ["--topo", "dgx1", "--ring", "0,0,1,2,3,4,5,6"]),
    (lambda: ccsim.predict("dgx1", model="nccl", nccl_algo="magic"), ["--topo", "dgx1", "--model", "nccl", "--nccl-algo", "magic"]),
    (lambda: ccsim.predict("dgx1", root=-1, op="reduce"), ["--topo", "dgx1", "--op", "reduce", "--root", "-1"]),
    (lambda: ccsim.rings("dgx1", explain=[0, 1, 9]), ["rings", "--topo", "dgx1", "--explain", "0,1,9"]),
    (lambda: ccsim.explain(op="gossip"), ["explain", "--op", "gossip"]),
    (lambda: ccsim.scenario("/nonexistent/s.json"), ["scenario", "/nonexistent/s.json"]),
    (lambda: ccsim.compare("dgx1", "not a trace\nat all\n"), None),
])
def test_bad_input_raises_the_cli_line(call, flags, tmp_path):
    with pytest.raises(ccsim.Error) as e:
        call()
    if flags is None:  # a trace given as text: the CLI reads the same text from a file of the same name
        trace = tmp_path / "trace.txt"
        trace.write_text("not a trace\nat all\n")
        # The Python text names the trace text where the CLI names its file (the scratch file is gone).
        assert str(e.value) == cli_error("compare", "--topo", "dgx1", "--trace", trace).replace(str(trace), "(the trace text)")
        return
    assert str(e.value) == cli_error(*flags)


# Eighth user trial: a size error named the CLI's -b/--minbytes, a flag the Python caller never typed: it names the
# keyword the size came from (the CLI's line otherwise).
@pytest.mark.parametrize("call,flags,flag,keyword", [
    (lambda: ccsim.predict("dgx1", sizes="12Q"), ["-b", "12Q", "-e", "12Q"], "-b/--minbytes", "sizes="),
    (lambda: ccsim.predict("dgx1", sizes=("1M", "2T")), ["-b", "1M", "-e", "2T"], "-e/--maxbytes", "sizes[1]"),
    (lambda: ccsim.timeline("dgx1", size="12Q"), ["-b", "12Q", "-e", "12Q"], "-b/--minbytes", "size="),
    (lambda: ccsim.timeline("dgx1", size=-5), ["-b", "-5", "-e", "-5"], "-b/--minbytes", "size="),
])
def test_a_size_error_names_the_keyword(call, flags, flag, keyword):
    with pytest.raises(ccsim.Error) as e:
        call()
    line = cli_error("--topo", "dgx1", *flags)
    assert flag in line and str(e.value) == line.replace(flag, keyword) and "--minbytes" not in str(e.value)


def test_a_topology_dict_that_is_wrong_names_what_is_wrong():
    doc = json.loads((DATA / "topologies" / "dgx1.json").read_text())
    doc["links"][0]["lanes"] = 0.5
    with pytest.raises(ccsim.Error) as e:
        ccsim.topology(doc)
    assert "lanes" in str(e.value) and "\n" not in str(e.value)


def test_rows_to_pandas():
    pandas = pytest.importorskip("pandas")
    df = ccsim.predict("dgx1", model="nccl", sizes=("1M", "4M")).to_pandas()
    assert list(df["size"]) == [1 << 20, 2 << 20, 4 << 20] and "choice_proto" in df.columns and pandas is not None


def test_compare_to_pandas_holds_the_cli_csv_rows():
    # Fifth user trial: compare() gave a plain dict, so a notebook had no .to_pandas() beside predict()'s; the frame
    # must hold what `ccsim compare --format csv` prints for the same trace (a second route to the numbers).
    pytest.importorskip("pandas")
    got = ccsim.compare("dgx1", TRACE, model="nccl")
    df = got.to_pandas()
    csv = subprocess.run([CCSIM, "compare", "--topo", "dgx1", "--trace", str(TRACE), "--model", "nccl", "--format", "csv"],
                         check=True, capture_output=True, text=True).stdout.splitlines()
    head, rows = csv[0].split(","), [dict(zip(csv[0].split(","), line.split(","))) for line in csv[1:]]
    # The CSV carries the run's names with units (README "Output for scripts"); the frame keeps the JSON rows' names.
    assert "measured_busbw_GBps" in head and len(df) == len(rows) > 10
    for (_, r), want in zip(df.iterrows(), rows):
        assert r["size"] == int(want["size"]) and r["proto"] == want["proto"]
        for k in ("measured_busbw", "predicted_busbw"):
            assert abs(r[k] - float(want[k + "_GBps"])) < 1e-4, (k, r[k], want[k + "_GBps"])
        assert abs(r["err_pct"] - float(want["busbw_err_pct"])) < 1e-3
    assert got["summary"]["rows"] == len(df)  # still the CLI's JSON document
    both = ccsim.Comparison({"kind": "ccsim-compare-runs", "runs": [dict(got), dict(got)]}).to_pandas()
    assert list(both["run"]) == [1] * len(df) + [2] * len(df)


def test_to_pandas_without_pandas_says_which_python_lacks_it(monkeypatch):
    # Fourth user trial: a pyenv python3 first on PATH has no pandas, and to_pandas() answered with a bare
    # "No module named 'pandas'" that said neither which interpreter nor how to get it.
    rows = ccsim.predict("dgx1", sizes="1M")
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now fails as when it is not installed
    with pytest.raises(ImportError) as e:
        rows.to_pandas()
    assert sys.executable in str(e.value) and "pip install pandas" in str(e.value) and "python3-pandas" in str(e.value)


def test_an_unknown_keyword_is_named_as_the_keyword_it_was():
    # Fourth user trial: predict(..., frobnicate=3) said only "The following arguments were not expected: 3
    # --frobnicate", a flag the user never typed.
    with pytest.raises(ccsim.Error) as e:
        ccsim.predict("dgx1", sizes="1M", frobnicate=3)
    assert "frobnicate= became --frobnicate, a flag this command does not have" in str(e.value)
    # ... after the CLI's own line for the same flags
    with pytest.raises(ccsim.Error) as e:
        ccsim.predict("dgx1", op="allgather", no_such_flag=1)
    cli_line = cli_error("--topo", "dgx1", "--op", "allgather", "--no-such-flag", "1")
    assert str(e.value) == cli_line + "; no_such_flag= became --no-such-flag, a flag this command does not have"
    with pytest.raises(ccsim.Error) as e:
        ccsim.explain(op="allreduce", algo="ring", ranks=8, chunk_sise="1M")
    assert "chunk_sise= became --chunk-sise" in str(e.value)


def test_two_threads_get_the_answers_one_gets():
    want = ccsim.predict("hgx-a100", sizes=("1K", "1M")).json
    got = []
    threads = [threading.Thread(target=lambda: got.append(ccsim.predict("hgx-a100", sizes=("1K", "1M")).json)) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [want] * 3


def test_host_staged_ports_as_topo_show_marks_them():
    # The GeForce preset: its 8 GPU ports staged through host memory, the socket link not.
    t = ccsim.topology("rtx4090-pcie-8gpu")
    show = subprocess.run([CCSIM, "topo", "show", "rtx4090-pcie-8gpu"], check=True, capture_output=True, text=True).stdout
    staged = [l for l in t.links if l["host_staged"]]
    assert len(staged) == 8 and all(l["type"] == "pcie4" for l in staged)
    assert show.count("host-staged (SHM)") == 8
    assert not any(l["host_staged"] for l in ccsim.topology("dgx1").links)


# Third user trial (a notebook user following docs/python.md): arguments as Python holds them.
def test_true_for_an_option_that_takes_a_value_is_refused_not_fed_the_next_flag():
    # root=True once became "--root --format json": CLI11 took "--format" as the root ("Could not convert").
    with pytest.raises(ccsim.Error) as e:
        ccsim.predict("dgx1", op="broadcast", root=True, sizes="1M")
    assert str(e.value) == cli_error("--topo", "dgx1", "--op", "broadcast", "--root=true") == \
        "--root: 'true' is not a whole number (see ccsim --help)"
    # A real flag given True still is the flag: eager=True is --eager.
    assert ccsim.predict("dgx1", eager=True, sizes="1M").json == cli_json("--topo", "dgx1", "--eager", "-b", "1M", "-e", "1M",
                                                                         "--format", "json")


def test_none_leaves_named_arguments_out_as_it_does_the_others():
    # docs/python.md: "None and False leave a flag out"; op=None once ran the collective "None".
    assert ccsim.predict("dgx1", op=None, model=None, sizes="1M").json == ccsim.predict("dgx1", sizes="1M").json


def test_sizes_as_a_notebook_holds_them():
    class Int64:  # numpy.int64 and the like: integers by __index__, not int instances
        def __init__(self, v):
            self.v = v

        def __index__(self):
            return self.v

    assert [r.size for r in ccsim.predict("dgx1", sizes=(Int64(1024), Int64(4096)))] == [1024, 2048, 4096]
    assert [r.size for r in ccsim.predict("dgx1", sizes=1e6)] == [1000000]  # a whole float is its integer
    for bad, text in ((1.5, "1.5 is not a whole number of bytes"), (float("nan"), "nan is not a whole number of bytes"),
                      (True, "True is not a size")):
        with pytest.raises(ccsim.Error) as e:
            ccsim.predict("dgx1", sizes=bad)
        assert str(e.value) == "sizes: " + text


def test_a_trace_read_as_bytes_compares_as_its_text():
    raw = TRACE.read_bytes()
    assert ccsim.compare("dgx1", raw) == ccsim.compare("dgx1", raw.decode())
    with pytest.raises(ccsim.Error) as e:  # binary garbage: the CLI's line, naming the text, not a TypeError
        ccsim.compare("dgx1", b"\x00\x01\xff")
    assert str(e.value) == "(the trace text):1: binary data, not an nccl-tests output"


def test_nan_in_a_dict_is_named_by_its_key():
    doc = json.loads((DATA / "scenarios" / "lm300m_dgx1.json").read_text())
    doc["compute"]["utilization"] = float("nan")
    with pytest.raises(ccsim.Error) as e:
        ccsim.scenario(doc)
    assert str(e.value) == "scenario: compute.utilization is nan, not a finite number (JSON has no NaN or infinity)"


def test_a_dict_error_names_the_dict_not_a_scratch_file():
    with pytest.raises(ccsim.Error) as e:
        ccsim.scenario({"x": 1})
    assert str(e.value).startswith("scenario (the scenario dict): unknown key 'x'") and "/tmp" not in str(e.value)


def test_gpu_with_a_name_or_spec_says_it_goes_with_a_file():
    with pytest.raises(ccsim.Error) as e:
        ccsim.topology("machine:gpu=mi300x", gpu="mi300x")
    assert "gpu= names the GPU of a file that does not" in str(e.value) and "machine:gpu=KIND" in str(e.value)


# Seventh user trial (a researcher sweeping clusters into pandas): docs/python.md promises an error's text is the line
# ccsim prints after "ccsim: "; a parse error of a subcommand pointed at "(see ccsim --help)", where the binary says
# "(see ccsim explain --help)".
@pytest.mark.parametrize("call,args", [
    (lambda: ccsim.explain(op="allreduce", algo="ring", ranks=2**33),
     ("explain", "--op", "allreduce", "--algo", "ring", "--ranks", str(2**33), "--format", "json")),
    (lambda: ccsim.rings("dgx1", exhaustive_max=99),
     ("rings", "--topo", "dgx1", "--exhaustive-max", "99", "--format", "json")),
])
def test_a_subcommand_parse_error_is_the_line_the_binary_prints(call, args):
    with pytest.raises(ccsim.Error) as e:
        call()
    assert str(e.value) == cli_error(*args)
    assert str(e.value).endswith(f"(see ccsim {args[0]} --help)")


# Twelfth user trial (a cluster's folder of nccl-tests outputs, from a notebook): compare() took one trace; a list of
# paths or a folder is now the CLI's summary over many files, a verdict per run, the unreadable files inside the
# document (not printed on the notebook's stderr, not an exception that loses the other files' results).
WILD = pathlib.Path(__file__).resolve().parents[1] / "data" / "wild_traces"
H100X2 = "machine:gpu=h100,nodes=2,nics=8x400G,kind=ib"


def test_compare_many_files_is_the_cli_summary(tmp_path, capfd):
    good = WILD / "h100-xe9680-2node-16gpu-allreduce-8B-16G-ib400-nccl2262-nccltests309.txt"
    slow = WILD / "h100-p5-2node-16gpu-allreduce-elided-tagoutput-awsome-eks.txt"
    empty = tmp_path / "slurm-9.out"
    empty.write_text("")
    paths = [good, slow, empty]
    got = ccsim.compare(H100X2, paths, model="nccl")
    cli = subprocess.run([CCSIM, "compare", "--topo", H100X2, "--trace", *map(str, paths), "--model", "nccl", "--format", "json"],
                         capture_output=True, text=True)
    assert cli.returncode == 2 and json.loads(cli.stdout) == dict(got)
    assert [r["verdict"] for r in got["runs"]] == ["ok", "below", "error"] and got["exit_status"] == 2
    assert got["runs"][2]["error"] == f"{empty}: the file is empty"
    assert capfd.readouterr().err == ""  # the error is in the document, not printed
    folder = tmp_path / "cluster"
    folder.mkdir()
    (folder / "a.out").write_bytes(good.read_bytes())
    # healthy= reaches the verdict: this run meets ~100 % of the prediction (100.7 % before the nvlstreemid branch's NVLS-tree
    # step handoff, 101.2 % after), so a bar at 150 % sets it below whatever the model's next percent
    assert [r["verdict"] for r in ccsim.compare(H100X2, folder, model="nccl", healthy=150)["runs"]] == ["below"]
    with pytest.raises(ccsim.Error, match="a list of traces holds paths"):
        ccsim.compare(H100X2, [good, 3])


def test_compare_summary_to_pandas_one_row_per_run(tmp_path):
    pytest.importorskip("pandas")
    good = WILD / "h100-nebius-2node-16gpu-allreduce-8B-8G-nohash-dstack.txt"
    df = ccsim.compare(H100X2, [good, good], model="nccl").to_pandas()
    assert list(df["verdict"]) == ["ok", "ok"] and (df["measured_over_predicted_pct"] > 80).all()


def test_a_mistyped_keyword_names_the_keyword_meant():
    # Twelfth user trial: ring_order= (the flag is --ring) was "arguments were not expected" and nothing more.
    with pytest.raises(ccsim.Error) as e:
        ccsim.predict("dgx1", ring_order=[0, 3, 2, 1, 5, 6, 7, 4], sizes="1M")
    assert str(e.value).startswith("--ring-order: no such flag; did you mean ring=?") and "ring_order= became --ring-order" in str(e.value)
