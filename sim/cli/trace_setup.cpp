#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "sim/cli/common.hpp"
#include "sim/cli/trace_commands.hpp"
#include "sim/core/ascii.hpp"
#include "sim/core/error.hpp"
#include "sim/model/compare.hpp"
#include "sim/model/nccl/nccl_version.hpp"
#include "sim/model/nccl/proto_list.hpp"
#include "sim/topology/p2p.hpp"
#include "sim/topology/topology_json.hpp"

namespace ccsim::cli {

void add_trace_options(CLI::App& app, TraceOptions& t) {
  app.add_option("--op", t.op, "Collective, when the trace does not say which (allreduce, allgather, ...)");
  app.add_option("--ranks", t.ranks, "Rank count, when the trace does not say (or to pick among the counts its busbw/algbw print leaves open)");
  app.add_flag("--force-hints", t.force, "--op/--ranks override what the trace says");
  app.add_flag("--in-place", t.in_place, "Use the in-place columns of the trace (default out-of-place)");
}

trace::Hints trace_hints(const TraceOptions& t) {
  trace::Hints hints;
  if (!t.op.empty()) {
    hints.op = require_op(t.op);
  }
  if (t.ranks < 0) fail("--ranks: must be positive, got {}", t.ranks);
  hints.ranks = t.ranks;
  hints.force = t.force;
  return hints;
}

TraceRun setup_trace_run(const RunOptions& o_in, trace::Trace trace, const std::string& trace_path, const std::string& topo_spec) {
  TraceRun r{std::move(trace), topology::resolve_topology(topo_spec), {}};
  // The trace's NCCL_P2P_LEVEL (apply_trace_env), as --p2p-level would have set it.
  if (!o_in.trace_p2p_level.empty()) {
    const auto level = topology::p2p_level_from(o_in.trace_p2p_level, "NCCL_P2P_LEVEL in the trace");
    if (level == topology::PathClass::Loc) r.topo = topology::without_p2p(r.topo, "NCCL_P2P_LEVEL=LOC in the trace");
    else r.topo.p2p_level = static_cast<int>(level);
  }
  const auto& tr = r.trace;
  if (tr.rows.empty())
    fail("{}: no nccl-tests rows to compare ({} NCCL ring hops only)", trace_path, tr.ring_hops.size());
  if (!tr.op) fail("{}: the trace does not say which collective it measured; pass --op", trace_path);
  if (tr.ranks <= 0) fail("{}: the trace does not say how many ranks ran; pass --ranks", trace_path);
  // nccl-tests' busbw factor is 2(n-1)/n or (n-1)/n for these: one GPU alone prints 0 and leaves no error to report.
  if (tr.ranks == 1 && (*tr.op == schedule::Op::AllReduce || *tr.op == schedule::Op::AllGather ||
                        *tr.op == schedule::Op::ReduceScatter || *tr.op == schedule::Op::AllToAll))
    fail("{}: the trace ran on 1 rank ({}): {}'s busbw is 0 on one rank, nothing to compare; compare a run on 2 or more", trace_path,
         tr.ranks_from, schedule::to_string(*tr.op));
  if (tr.ranks > r.topo.num_gpus())
    fail("{}: the trace ran on {} ranks ({}) but topology {} has {} GPUs", trace_path, tr.ranks, tr.ranks_from, r.topo.name,
         r.topo.num_gpus());
  RunOptions o = o_in;
  o.op = std::string(schedule::to_string(*tr.op));
  o.datatype = tr.rows.front().type;
  const std::string redop = tr.rows.front().redop;
  o.redop = (redop == "sum" || redop == "prod" || redop == "max" || redop == "min" || redop == "avg") ? redop : "sum";
  o.root = std::max(0, tr.rows.front().root.value_or(0));
  // The root comes from the file, so the file is named, never a -r flag nobody gave.
  if (o.root >= tr.ranks)
    fail("{}:{}: root {} does not exist on the trace's {} ranks", trace_path, tr.rows.front().line, o.root, tr.ranks);
  if (o.gpus.empty() && o.ring.empty() && o.rings.empty() && tr.ranks < r.topo.num_gpus()) {
    for (int g = 0; g < tr.ranks; ++g) o.gpus += fmt::format("{}{}", g ? "," : "", g);
  }
  r.cfg = make_run_config(o, r.topo);
  // Fitted parameter sets' step_us is a per-step cost of the lockstep model they were fitted under (as
  // NCCL's tuning formula charges it), so comparisons and fits replay that way whatever --semantics says.
  r.cfg.model.semantics = engine::Semantics::mpi;
  if (metrics::ranks_of(r.cfg) != tr.ranks)
    fail("{}: the trace ran on {} ranks but the placement ({}) has {}", trace_path, tr.ranks,
         !o_in.rings.empty() ? "--rings" : !o_in.ring.empty() ? "--ring" : !o_in.gpus.empty() ? "--gpus" : "--topo",
         metrics::ranks_of(r.cfg));
  return r;
}

namespace {

// CollNet (SHARP in the fabric): NCCL_COLLNET_ENABLE, "N collnet channels" and SHARP tree log lines say
// whether the run used it; --collnet is set from them where the user left auto.
// NCCL prints "N coll channels, M collnet channels, ..." since 2.20.3. Only 2.20.x prints the CollNet count there
// (src/init.cc: comm->collNetChannels); from 2.21.5 on the same INFO passes comm->nChannels twice (NVIDIA/nccl
// src/init.cc, v2.21.5-1 to v2.29.7-1), so M is the coll channel count whether CollNet runs or not. M says something
// when the release is 2.20.x, or, release unknown, when it differs from N (only 2.20 could print that).
bool collnet_count_says(const trace::Trace& t, const std::optional<std::string>& release) {
  const auto& info = t.info;
  if (info.collnet_channels < 0) return false;
  if (const auto v = release ? model::nccl::parse_nccl_version(*release) : std::nullopt)
    return (*v)[0] == 2 && (*v)[1] == 20;
  return info.collnet_channels != info.coll_channels;
}

void apply_trace_collnet(RunOptions& run, const trace::Trace& t, std::vector<std::string>& applied) {
  const bool nccl = run.model == "nccl", free = nccl && run.collnet == "auto";
  const auto& info = t.info;
  const auto env = t.env.find("NCCL_COLLNET_ENABLE");
  auto release = model::nccl::nccl_version_in(t.provenance);
  if (!release && !info.release.empty()) release = info.release;
  const bool count_says = collnet_count_says(t, release);
  if (info.collnet_channels >= 0 && !count_says)
    applied.push_back(fmt::format("NCCL INFO: {} collnet channels not read as CollNet: NCCL {} prints its coll channel count there",
                                  info.collnet_channels, release ? *release : std::string("2.21 and later")));
  const bool off = (env != t.env.end() && env->second == "0") || (count_says && info.collnet_channels == 0);
  const bool on = (env != t.env.end() && env->second == "1") || (count_says && info.collnet_channels > 0) || info.sharp_trees > 0;
  if (on && !off) {
    // Left at auto, not forced on: auto runs CollNet where the described fabric has SHARP (sharp=1) and
    // a description without it still predicts (NCCL's ring/tree), instead of refusing the comparison.
    applied.push_back(fmt::format("CollNet in use ({}{}){}", info.sharp_trees > 0 ? fmt::format("{} SHARP tree log line(s)", info.sharp_trees)
                                                              : info.collnet_channels > 0 ? fmt::format("{} collnet channels", info.collnet_channels)
                                                                                          : std::string("NCCL_COLLNET_ENABLE=1"),
                                  info.sharp_group_size > 0 ? fmt::format(", SHARP group of {} nodes", info.sharp_group_size) : std::string(),
                                  free ? " (--collnet auto: used where the fabric has sharp=1)" : ""));
  } else if (off) {
    if (free) run.collnet = "off";
    if (env != t.env.end()) applied.push_back(std::string("applied NCCL_COLLNET_ENABLE=0 from the trace") + (free ? ": --collnet off" : ""));
  }
}

// RCCL's MSCCL as the run had it (ROCm/rccl 0cbce2a src/misc/msccl/msccl_lifecycle.cc): RCCL_MSCCL_ENABLE=0 turns it
// off; RCCL_MSCCL_ENABLE_SINGLE_PROCESS=0 turns it off where one process drives several of the communicator's GPUs
// (mscclCommCompatible: then two ranks share a host and a pid), i.e. rccl-tests -g N or -t N above 1. The log's
// "Using MSCCL files from" says it was on. A given --msccl wins; nothing in the trace: auto.
void apply_trace_msccl(RunOptions& run, const trace::Trace& t, std::vector<std::string>& applied) {
  auto value = [&](const char* k) { const auto it = t.env.find(k); return it == t.env.end() ? std::string() : it->second; };
  const bool one_process_many = model::gpus_per_thread(t) > 1 || model::threads_per_process(t) > 1;
  std::string why_off;
  if (value("RCCL_MSCCL_ENABLE") == "0") why_off = "RCCL_MSCCL_ENABLE=0";
  else if (value("RCCL_MSCCL_ENABLE_SINGLE_PROCESS") == "0" && one_process_many)
    why_off = "RCCL_MSCCL_ENABLE_SINGLE_PROCESS=0 with several GPUs in one process";
  if (!why_off.empty()) {
    if (run.msccl != "auto") applied.push_back("the trace states " + why_off + "; --msccl " + run.msccl + " given wins");
    else {
      run.msccl = "off";
      applied.push_back("applied " + why_off + " from the trace: --msccl off");
    }
  } else if (t.info.msccl_loaded) {
    applied.push_back(std::string("RCCL INFO: Using MSCCL files (MSCCL on)") + (run.msccl == "off" ? "; --msccl off given wins" : ""));
  }
}

// The release the trace names (its header, else NCCL's own "NCCL INFO NCCL version 2.18.3+cuda12.2" line) becomes
// --nccl-version when none is given; a given one wins, said in one line when they differ. Either way the header
// says which release the prediction used.
void apply_trace_release(RunOptions& run, const trace::Trace& t, std::vector<std::string>& applied) {
  auto found = model::nccl::nccl_version_in(t.provenance);
  const char* where = "the trace's header";
  if (!found && !t.info.other_release.empty()) {
    applied.push_back(fmt::format("NCCL INFO lines name two releases, {} and {}: neither applied{}", t.info.release, t.info.other_release,
                                  run.nccl_version.empty() ? " (give --nccl-version)" : ", --nccl-version " + run.nccl_version + " used"));
    return;
  }
  if (!found && !t.info.release.empty() && model::nccl::parse_nccl_version(t.info.release)) {
    found = t.info.release;
    where = "the trace's NCCL INFO line";
  }
  if (!run.nccl_version.empty()) {
    if (!found) applied.push_back("NCCL version " + run.nccl_version + " from --nccl-version (the trace names none)");
    else if (model::nccl::parse_nccl_version(*found) == model::nccl::parse_nccl_version(run.nccl_version))
      applied.push_back("NCCL version " + run.nccl_version + " from --nccl-version (" + where + " says the same)");
    else
      applied.push_back("NCCL version " + run.nccl_version + " from --nccl-version, which wins over " + *found + " in " + where);
    return;
  }
  if (!found) return;
  run.nccl_version = *found;
  applied.push_back("NCCL version " + *found + " from " + where + " (applied as --nccl-version: LL128 where that release enables it)");
}

// A trace's value of an integer NCCL_PARAM as NCCL reads it (strtoll, base 0: "0x80000" is 524288), or nothing when
// the whole value is not one number.
std::optional<long long> nccl_param_int(const std::string& value) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(value.c_str(), &end, 0);
  if (value.empty() || !end || *end != '\0' || errno != 0) return std::nullopt;
  return v;
}

// NCCL_MIN_NCHANNELS / NCCL_MAX_NCHANNELS and NCCL_MIN_CTAS / NCCL_MAX_CTAS bound the ring/tree channel count (NVIDIA/nccl
// src/graph/connect.cc ncclTopoPostset, v2.17.1-1 to v2.29.2-1): min(count, NCCL_MAX_NCHANNELS, maxCTAs), then copies
// of the first channels up to max(NCCL_MIN_NCHANNELS, minCTAs). NCCL_MIN/MAX_NRINGS are the older names, read unless
// the NCHANNELS one is set (ncclMinNchannels). Values as NCCL reads them: strtoll base 0; a min below 0 is 0, a max
// below 1 is 1, both at most the release's MAXCHANNELS (32 through v2.24.3, 64 from v2.25.1); NCCL_MIN/MAX_CTAS at
// or below 0 are left out (src/init.cc "is too low, leaving it"), and a minCTAs above maxCTAs becomes maxCTAs. A
// log's "N coll channels" already counts them.
// NCCL_MIN/MAX_CTAS alone bound NVLS's channels too (src/transport/nvls.cc: nvlsChannels = max(minCTAs, min(maxCTAs,
// its count)), v2.17.1-1 to v2.30.7-1; the builder caps them at the release's MAXCHANNELS); NCCL_MIN/MAX_NCHANNELS
// never do. A log's "N nvls channels" already counts them.
void apply_trace_channel_bounds(RunOptions& run, const trace::Trace& t, std::vector<std::string>& applied) {
  struct Stated {
    std::string key, value;
    long long v = 0;
  };
  auto stated = [&](std::initializer_list<const char*> keys) -> std::optional<Stated> {
    for (const char* k : keys) { // the first key wins: the newer name before the legacy one
      const auto it = t.env.find(k);
      if (it == t.env.end()) continue;
      const auto v = nccl_param_int(it->second);
      if (!v) {
        applied.push_back(fmt::format("not applied: {}={} from the trace (not a whole number)", k, it->second));
        return std::nullopt;
      }
      return Stated{k, it->second, *v};
    }
    return std::nullopt;
  };
  // NCCL_NVLS_NCHANNELS: the NVLS count the CTAs bound, read as the release reads it (nccl_version.hpp
  // nvls_nchannels_in_release).
  if (const auto it = t.env.find("NCCL_NVLS_NCHANNELS"); it != t.env.end()) {
    const auto v = nccl_param_int(it->second);
    if (!v) applied.push_back(fmt::format("not applied: NCCL_NVLS_NCHANNELS={} from the trace (not a whole number)", it->second));
    else if (t.info.nvls_channels > 0)
      applied.push_back(fmt::format("the trace states NCCL_NVLS_NCHANNELS={}: already in the log's {} nvls channels", it->second, t.info.nvls_channels));
    else {
      run.nvls_nchannels_set = true;
      run.nvls_nchannels = *v;
      applied.push_back(fmt::format("applied NCCL_NVLS_NCHANNELS={} from the trace: NVLS / NVLS-tree CUDA channels {} before NCCL_MIN/MAX_CTAS{}",
                                    it->second, std::max(1LL, *v), *v > 0 ? "" : " (from NCCL 2.25 a value below 0, from 2.27 one at or below 0, leaves NCCL's own count)"));
    }
  }
  // NCCL's MAXCHANNELS in the run's release (src/include/device.h: 32 through v2.24.3, 64 from v2.25.1; 64 unstated).
  const long long most = model::nccl::max_channels_in_release(
      run.nccl_version.empty() ? std::nullopt : model::nccl::parse_nccl_version(run.nccl_version));
  auto min_n = stated({"NCCL_MIN_NCHANNELS", "NCCL_MIN_NRINGS"}), max_n = stated({"NCCL_MAX_NCHANNELS", "NCCL_MAX_NRINGS"});
  auto min_c = stated({"NCCL_MIN_CTAS"}), max_c = stated({"NCCL_MAX_CTAS"});
  for (auto* c : {&min_c, &max_c})
    if (*c && (*c)->v <= 0) {
      applied.push_back(fmt::format("not applied: {}={} from the trace (NCCL leaves a count at or below 0 out)", (*c)->key, (*c)->value));
      c->reset();
    }
  if (min_n) min_n->v = std::clamp(min_n->v, 0LL, most);
  if (max_n) max_n->v = std::clamp(max_n->v, 1LL, most);
  if (min_c) min_c->v = std::min(min_c->v, most);
  if (max_c) max_c->v = std::min(max_c->v, most);
  if (min_c && max_c && min_c->v > max_c->v) min_c->v = max_c->v;
  if (!min_n && !max_n && !min_c && !max_c) return;
  std::string names;
  for (const auto* c : {&min_n, &max_n, &min_c, &max_c})
    if (*c) names += fmt::format("{}{}={}", names.empty() ? "" : ", ", (*c)->key, (*c)->value);
  // NVLS first: its bounds do not depend on whether the log counts the ring/tree channels.
  std::string nvls_names;
  for (const auto* c : {&min_c, &max_c})
    if (*c) nvls_names += fmt::format("{}{}={}", nvls_names.empty() ? "" : ", ", (*c)->key, (*c)->value);
  if (t.info.nvls_channels > 0 && !nvls_names.empty()) {
    applied.push_back(fmt::format("the trace states {}: already in the log's {} nvls channels", nvls_names, t.info.nvls_channels));
  } else if (!nvls_names.empty()) {
    run.nccl_min_ctas = min_c ? static_cast<int>(min_c->v) : 0;
    run.nccl_max_ctas = max_c ? static_cast<int>(max_c->v) : 0;
    std::string what = max_c ? fmt::format("at most {}", max_c->v) : std::string();
    if (min_c) what += fmt::format("{}at least {}", what.empty() ? "" : ", ", min_c->v);
    applied.push_back(fmt::format("applied {} from the trace: NVLS / NVLS-tree CUDA channels {} (NCCL's nvlsChannels)", nvls_names, what));
  }
  if ((min_n || max_n) && t.info.nvls_channels < 0 && run.nvls != "off") // NVLS off: nothing to say about it
    applied.push_back(fmt::format("not applied to NVLS channels: {}{}{} (NCCL bounds nvlsChannels by NCCL_MIN/MAX_CTAS only)",
                                  min_n ? min_n->key + "=" + min_n->value : std::string(), min_n && max_n ? ", " : "",
                                  max_n ? max_n->key + "=" + max_n->value : std::string()));
  if (t.info.coll_channels > 0) {
    applied.push_back(fmt::format("the trace states {}: already in the log's {} coll channels", names, t.info.coll_channels));
    return;
  }
  const long long lo = std::max(min_n ? min_n->v : 0, min_c ? min_c->v : 0);
  const long long hi = std::min(max_n ? max_n->v : most, max_c ? max_c->v : most);
  run.nccl_min_channels = static_cast<int>(lo);
  run.nccl_max_channels = (max_n || max_c) ? static_cast<int>(hi) : 0;
  std::string what;
  if (max_n || max_c) what = fmt::format("at most {}", hi);
  if (lo > 0) what += fmt::format("{}at least {} (copies of the first)", what.empty() ? "" : ", then ", lo);
  applied.push_back(fmt::format("applied {} from the trace: ring/tree CUDA channels {}", names, what));
}

} // namespace

// E.g. NCCL_NVLS_ENABLE=0 or "0 nvls channels" -> --nvls off, NCCL_ALGO=ring -> --nccl-algo ring, "24 coll
// channels" -> 24 CUDA channels.
std::vector<std::string> apply_trace_env(RunOptions& run, const trace::Trace& t) {
  std::vector<std::string> applied;
  const bool nccl = run.model == "nccl";
  if (const auto it = t.env.find("NCCL_NVLS_ENABLE"); nccl && it != t.env.end() && run.nvls == "auto" && it->second == "0") {
    run.nvls = "off";
    applied.push_back("applied NCCL_NVLS_ENABLE=0 from the trace: --nvls off");
  }
  if (const auto it = t.env.find("NCCL_ALGO"); nccl && it != t.env.end() && run.nccl_algo == "auto") {
    std::string a = ascii_lower(it->second);
    if (a == "collnetdirect" || a == "collnetchain") a.insert(7, "_"); // NCCL's spelling -> --nccl-algo's
    if (a == "ring" || a == "tree" || a == "nvls" || a == "collnet_direct" || a == "collnet_chain") {
      run.nccl_algo = a;
      applied.push_back("applied NCCL_ALGO=" + it->second + " from the trace: --nccl-algo " + a);
    }
  }
  if (const auto it = t.env.find("NCCL_PROTO"); nccl && it != t.env.end()) {
    if (!run.nccl_proto.empty()) {
      applied.push_back("the trace states NCCL_PROTO=" + it->second + "; --nccl-proto " + run.nccl_proto + " given wins");
    } else {
      try {
        model::nccl::proto_set_from(it->second, "NCCL_PROTO in the trace");
        run.nccl_proto = it->second;
        applied.push_back("applied NCCL_PROTO=" + it->second + " from the trace: --nccl-proto " + it->second);
      } catch (const Error& e) {
        applied.push_back(std::string("not applied: ") + e.what());
      }
    }
  }
  // NCCL_NVLS_CHUNKSIZE and NCCL_NVLSTREE_MAX_CHUNKSIZE (NCCL_PARAMs read by strtoll base 0; the tree's -2 is NCCL's
  // own rule): the NVLS-tree chunk (tuning.cpp nvls_tree_chunk_bytes). A value that is no positive size up to
  // 64 MiB is named and left out.
  for (const auto& [key, field] : {std::pair{"NCCL_NVLS_CHUNKSIZE", &RunOptions::nvls_chunk_bytes},
                                   std::pair{"NCCL_NVLSTREE_MAX_CHUNKSIZE", &RunOptions::nvls_tree_max_chunk_bytes}}) {
    const auto it = t.env.find(key);
    if (!nccl || it == t.env.end()) continue;
    const auto v = nccl_param_int(it->second);
    if (v == -2LL && field == &RunOptions::nvls_tree_max_chunk_bytes) continue; // NCCL's default spelled out
    if (!v || *v <= 0 || *v > (64LL << 20)) {
      applied.push_back(fmt::format("not applied: {}={} from the trace (not a size of 1 B to 64 MiB)", key, it->second));
      continue;
    }
    run.*field = *v;
    applied.push_back(fmt::format("applied {}={} from the trace: the NVLS-tree chunk", key, *v));
  }
  const auto& info = t.info;
  if (info.coll_channels > 0) {
    if (nccl) run.nccl_channels = info.coll_channels;
    applied.push_back(fmt::format("NCCL INFO: {} coll channels{}", info.coll_channels, nccl ? " (applied as the ring/tree CUDA channel count)" : ""));
  }
  if (nccl && info.nvls_channels == 0 && run.nvls == "auto") {
    run.nvls = "off";
    applied.push_back("NCCL INFO: 0 nvls channels (applied: --nvls off)");
  } else if (info.nvls_channels > 0) {
    // NCCL prints comm->nvlsChannels there (src/init.cc, v2.17.1-1 on): the count its NVLS and NVLS-tree run on.
    if (nccl) run.nvls_channels = info.nvls_channels;
    applied.push_back(fmt::format("NCCL INFO: {} nvls channels{}", info.nvls_channels, nccl ? " (applied as the NVLS CUDA channel count)" : ""));
  }
  // ncclGetLevel (src/graph/paths.cc, v2.29.2-1): NCCL_P2P_DISABLE read by strtol(str, NULL, 0), 1 is level LOC (no P2P
  // between a host's GPUs) and NCCL_P2P_LEVEL is then not read; any other value leaves P2P on.
  bool p2p_disabled = false;
  if (const auto it = t.env.find("NCCL_P2P_DISABLE"); nccl && it != t.env.end()) {
    if (std::strtol(it->second.c_str(), nullptr, 0) == 1) {
      if (topology::p2p_level()) {
        applied.push_back("the trace states NCCL_P2P_DISABLE=1; --p2p-level given wins");
      } else {
        p2p_disabled = true;
        run.trace_p2p_level = "LOC";
        applied.push_back("applied NCCL_P2P_DISABLE=1 from the trace: P2P level LOC (GPUs of a host copy through host memory)");
      }
    }
  }
  if (const auto level = t.env.find("NCCL_P2P_LEVEL"); nccl && level != t.env.end()) {
    if (p2p_disabled) {
      applied.push_back("the trace states NCCL_P2P_LEVEL=" + level->second + ": not read, NCCL_P2P_DISABLE=1 comes first");
    } else if (topology::p2p_level()) {
      applied.push_back("the trace states NCCL_P2P_LEVEL=" + level->second + "; --p2p-level given wins");
    } else {
      try {
        topology::p2p_level_from(level->second, "NCCL_P2P_LEVEL in the trace");
        run.trace_p2p_level = level->second;
        applied.push_back("applied NCCL_P2P_LEVEL=" + level->second + " from the trace: --p2p-level " + level->second);
      } catch (const Error& e) {
        applied.push_back(std::string("not applied: ") + e.what());
      }
    }
  }
  if (nccl) apply_trace_msccl(run, t, applied);
  if (nccl) apply_trace_release(run, t, applied);
  if (nccl) apply_trace_channel_bounds(run, t, applied); // after the release: its MAXCHANNELS bounds them
  apply_trace_collnet(run, t, applied);
  if (!info.network.empty()) applied.push_back("NCCL INFO: using network " + info.network);
  return applied;
}

} // namespace ccsim::cli
