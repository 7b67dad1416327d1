#include "sim/model/nccl/nccl_env.hpp"

#include <array>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/core/ascii.hpp"
#include "sim/core/error.hpp"
#include "sim/core/printable.hpp"
#include "sim/topology/p2p.hpp"
#include "sim/trace/nccl_tests_options.hpp"

namespace ccsim::model::nccl {
namespace {

// ncclFuncStr, ncclAlgoStr and ncclProtoStr of NVIDIA/nccl src/init.cc (v2.29.2-1), in NCCL's order.
constexpr std::array<std::string_view, 5> kEnvFuncNames{"Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce"};
constexpr std::array<std::string_view, 7> kEnvAlgoNames{"Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"};
constexpr std::array<std::string_view, 3> kEnvProtoNames{"LL", "LL128", "Simple"};
enum EnvAlgoIndex { kEnvTree, kEnvRing, kEnvCollNetDirect, kEnvCollNetChain, kEnvNvls, kEnvNvlsTree, kEnvPat };

constexpr std::array<std::string_view, 7> kEnvVariables{"NCCL_ALGO",          "NCCL_PROTO",        "NCCL_NVLS_ENABLE", "NCCL_COLLNET_ENABLE",
                                                 "RCCL_MSCCL_ENABLE", "NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL"};

bool same_env_name(std::string_view a, std::string_view b) { return ascii_lower(a) == ascii_lower(b); }

// strtok's tokens: the non-empty pieces between separators.
std::vector<std::string_view> env_tokens(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (!s.empty()) {
    const auto at = s.find(sep);
    if (at != 0) out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) break;
    s.remove_prefix(at + 1);
  }
  return out;
}

// NCCL_PARAM's reading (ncclLoadParam): strtoll(value, NULL, 0); no digits read as 0.
long long env_param_value(const std::string& v) {
  const auto n = trace::nccl_tests_number(v);
  return n ? n->value : 0;
}

std::string join_env_enabled(const std::vector<bool>& on, std::span<const std::string_view> elems) {
  std::vector<std::string_view> names;
  for (std::size_t i = 0; i < elems.size(); ++i)
    if (on[i]) names.push_back(elems[i]);
  return fmt::format("{}", fmt::join(names, ","));
}

// NCCL_ALGO's enabled set for the collective as --nccl-algo / --nvls / --collnet. ccsim runs one algorithm or NCCL's
// own pick among ring, tree and (where the machine has them) NVLS and CollNet, each family on or off; PAT is never
// modelled (it leaves NCCL's pick for allgather/reducescatter at one GPU per node), so its bit is ignored.
void apply_env_algo(EnvFlags& f, const std::vector<bool>& on, const std::string& value, std::string_view func) {
  const std::string where = fmt::format("environment NCCL_ALGO={}", printable(value, 80));
  const bool tree = on[kEnvTree], ring = on[kEnvRing], cd = on[kEnvCollNetDirect], cc = on[kEnvCollNetChain], nv = on[kEnvNvls], nt = on[kEnvNvlsTree];
  const int count = tree + ring + cd + cc + nv + nt;
  if (count == 0) fail("{}: leaves no algorithm ccsim models for {} (Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree)", where, func);
  if (count == 1) {
    if (nt) fail("{}: NVLSTree alone is not modelled (ccsim weighs NVLS-tree as NCCL's pick on several nodes): list it with Ring,Tree,NVLS or give --nccl-algo", where);
    const char* algo = tree ? "tree" : ring ? "ring" : cd ? "collnet_direct" : cc ? "collnet_chain" : "nvls";
    f.nccl_algo = algo;
    f.source["--nccl-algo"] = "NCCL_ALGO";
    f.read.emplace_back("NCCL_ALGO", fmt::format("--nccl-algo {}", algo));
    return;
  }
  if (!tree || !ring)
    fail("{}: enables {} for {}; ccsim runs one algorithm, or NCCL's pick with both Ring and Tree in (NVLS and CollNet each on or "
         "off): give one name, Ring,Tree with or without NVLS,NVLSTree and CollNetDirect,CollNetChain, or --nccl-algo",
         where, join_env_enabled(on, std::span<const std::string_view>(kEnvAlgoNames.data(), kEnvPat)), func);
  // --nvls turns NVLS and NVLS-tree on or off together; NCCL_ALGO may keep one. NVLS decides (NVLS-tree is NCCL's
  // only on several nodes), and the header says what differs there.
  std::string what = "NCCL's own pick";
  if (!nv) {
    f.nvls = "off";
    f.source["--nvls"] = "NCCL_ALGO";
    what += nt ? ", --nvls off (NVLSTree left in is not modelled: --nvls off drops the NVLS-tree NCCL runs on several nodes)"
               : ", --nvls off";
  } else if (!nt) {
    what += " (NVLSTree left out is not modelled: on several nodes --nvls auto still weighs NVLS-tree)";
  }
  if (!cd && !cc) {
    f.collnet = "off";
    f.source["--collnet"] = "NCCL_ALGO";
    what += ", --collnet off";
  } else if (!cd || !cc) {
    what += fmt::format(" ({} left out is not modelled: --collnet auto weighs both)", cd ? "CollNetChain" : "CollNetDirect");
  }
  f.read.emplace_back("NCCL_ALGO", what);
}

} // namespace

std::span<const std::string_view> nccl_env_names() { return kEnvVariables; }

std::string_view nccl_func_name(schedule::Op op) {
  switch (op) {
    case schedule::Op::Broadcast: return kEnvFuncNames[0];
    case schedule::Op::Reduce: return kEnvFuncNames[1];
    case schedule::Op::AllGather: return kEnvFuncNames[2];
    case schedule::Op::ReduceScatter: return kEnvFuncNames[3];
    case schedule::Op::AllReduce: return kEnvFuncNames[4];
    default: return "";
  }
}

std::vector<bool> parse_nccl_list(std::string_view value, std::span<const std::string_view> elems, std::string_view func,
                                  std::string_view where) {
  std::vector<bool> on(elems.size(), true);
  const auto entries = env_tokens(value, ';');
  for (std::size_t k = 0; k < entries.size(); ++k) {
    const auto parts = env_tokens(entries[k], ':');
    std::string_view prefix, list = parts.empty() ? std::string_view{} : parts[0];
    if (parts.size() >= 2) prefix = parts[0], list = parts[1];
    // NCCL: "All entries except the first must have a prefix" (the first means the one at the start of the text).
    if (prefix.empty() && (k > 0 || entries[k].data() != value.data()))
      fail("{}: every entry after the first needs a collective prefix (as NCCL: 'Ring;allreduce:Tree')", where);
    bool known = prefix.empty();
    for (const auto& name : kEnvFuncNames) known = known || same_env_name(prefix, name);
    if (!known)
      fail("{}: unrecognized prefix '{}' (NCCL's collectives: {}; NCCL refuses it too)", where, printable(prefix, 40), fmt::join(kEnvFuncNames, ", "));
    const bool exclude = !list.empty() && list.front() == '^';
    if (exclude) list.remove_prefix(1);
    std::vector<bool> mine(elems.size(), exclude);
    for (const auto word : env_tokens(list, ',')) {
      std::size_t e = 0;
      while (e < elems.size() && !same_env_name(word, elems[e])) ++e;
      if (e == elems.size())
        fail("{}: unrecognized name '{}' (NCCL's names: {}; NCCL refuses it too)", where, printable(word, 40), fmt::join(elems, ", "));
      mine[e] = !exclude;
    }
    if (prefix.empty() || same_env_name(prefix, func)) on = std::move(mine);
  }
  return on;
}

EnvFlags nccl_env_flags(const std::map<std::string, std::string>& env, schedule::Op op) {
  EnvFlags f;
  auto get = [&](std::string_view name) -> const std::string* {
    const auto it = env.find(std::string(name));
    return it == env.end() ? nullptr : &it->second;
  };
  const std::string_view func = nccl_func_name(op);
  const std::string p2p_op = func.empty() ? fmt::format(" (NCCL runs {} on its point-to-point path)", schedule::to_string(op)) : "";
  if (const auto* v = get("NCCL_ALGO")) {
    const auto on = parse_nccl_list(*v, kEnvAlgoNames, func, fmt::format("environment NCCL_ALGO={}", printable(*v, 80)));
    if (func.empty()) f.read.emplace_back("NCCL_ALGO", "not used" + p2p_op);
    else apply_env_algo(f, on, *v, func);
  }
  if (const auto* v = get("NCCL_PROTO")) {
    const std::string where = fmt::format("environment NCCL_PROTO={}", printable(*v, 80));
    const auto on = parse_nccl_list(*v, kEnvProtoNames, func, where);
    const std::string names = join_env_enabled(on, kEnvProtoNames);
    if (names.empty()) fail("{}: leaves no protocol for {} (LL, LL128, Simple)", where, func.empty() ? schedule::to_string(op) : func);
    if (on[0] && on[1] && on[2]) {
      f.read.emplace_back("NCCL_PROTO", "every protocol NCCL enables (no restriction)");
    } else {
      f.nccl_proto = names;
      f.source["--nccl-proto"] = "NCCL_PROTO";
      f.read.emplace_back("NCCL_PROTO", "--nccl-proto " + names);
    }
  }
  if (const auto* v = get("NCCL_NVLS_ENABLE")) {
    if (env_param_value(*v) == 0) {
      f.nvls = "off";
      f.source["--nvls"] = "NCCL_NVLS_ENABLE";
    }
    f.read.emplace_back("NCCL_NVLS_ENABLE", f.nvls ? "--nvls off" : "NVLS where the machine has it (NCCL's default)");
  }
  if (const auto* v = get("NCCL_COLLNET_ENABLE")) {
    if (env_param_value(*v) == 0) {
      f.collnet = "off";
      f.source["--collnet"] = "NCCL_COLLNET_ENABLE";
    }
    f.read.emplace_back("NCCL_COLLNET_ENABLE", f.collnet ? "--collnet off" : "CollNet where the fabric has SHARP (--collnet auto)");
  }
  if (const auto* v = get("RCCL_MSCCL_ENABLE")) {
    if (env_param_value(*v) == 0) {
      f.msccl = "off";
      f.source["--msccl"] = "RCCL_MSCCL_ENABLE";
    }
    f.read.emplace_back("RCCL_MSCCL_ENABLE", f.msccl ? "--msccl off" : "MSCCL where RCCL ships one (--msccl auto)");
  }
  // ncclGetLevel: NCCL_P2P_DISABLE=1 is level LOC and NCCL_P2P_LEVEL is then not read.
  const auto* disable = get("NCCL_P2P_DISABLE");
  if (disable && env_param_value(*disable) == 1) {
    f.p2p = "off";
    f.source["--p2p"] = "NCCL_P2P_DISABLE";
    f.read.emplace_back("NCCL_P2P_DISABLE", "--p2p off");
  } else if (disable) {
    f.read.emplace_back("NCCL_P2P_DISABLE", "not 1: P2P stays on");
  }
  if (const auto* v = get("NCCL_P2P_LEVEL")) {
    if (f.p2p) {
      f.read.emplace_back("NCCL_P2P_LEVEL", "not read: NCCL_P2P_DISABLE=1 comes first");
    } else {
      try {
        (void)topology::p2p_level_from(*v, "NCCL_P2P_LEVEL");
        f.p2p_level = *v;
        f.source["--p2p-level"] = "NCCL_P2P_LEVEL";
        f.read.emplace_back("NCCL_P2P_LEVEL", "--p2p-level " + *v);
      } catch (const Error&) {
        f.read.emplace_back("NCCL_P2P_LEVEL", "not a level NCCL reads (LOC .. SYS or a number): NCCL's default");
      }
    }
  }
  return f;
}

} // namespace ccsim::model::nccl
