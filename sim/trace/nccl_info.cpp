// NCCL INFO lines as facts of a run (see parse_info_facts in nccl_tests_trace.hpp).
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/trace/line_text.hpp"
#include "sim/trace/nccl_tests_trace.hpp"

namespace ccsim::trace {

namespace {
// The number just before `word` in `s` ("24 coll channels" -> 24), or -1.
int count_before(std::string_view s, std::string_view word, const std::string& where) {
  const auto at = s.find(word);
  if (at == std::string_view::npos) return -1;
  auto end = at;
  while (end > 0 && s[end - 1] == ' ') --end;
  auto begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(s[begin - 1]))) --begin;
  if (begin == end) return -1;
  return static_cast<int>(parse_whole(s.substr(begin, end - begin), where + ": NCCL INFO channel count", 0, 4096));
}

std::vector<std::string_view> words_of(std::string_view line) {
  std::vector<std::string_view> w;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    const auto start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) w.push_back(line.substr(start, i - start));
  }
  return w;
}

// A command that starts the test: a launcher (mpirun, mpiexec, srun) or an nccl-tests / rccl-tests binary
// (all_reduce_perf, alltoall_perf_mpi, ...), or a continuation line of one that opens with a launcher's
// environment option (a command split with '\').
bool launch_line(const std::vector<std::string_view>& words) {
  if (words.empty()) return false;
  const auto first = words.front();
  if (first == "-x" || first == "-genv" || first == "-env" || first.rfind("--export=", 0) == 0) return true;
  for (auto w : words) {
    if (text::is_launcher(w)) return true;
    if (const auto slash = w.rfind('/'); slash != std::string_view::npos) w.remove_prefix(slash + 1);
    if (w.size() > 5 && (w.substr(w.size() - 5) == "_perf" || (w.size() > 9 && w.substr(w.size() - 9) == "_perf_mpi"))) return true;
  }
  return false;
}
} // namespace

void parse_info_facts(std::string_view line, Trace::NcclInfo& info, const std::string& where) {
  const auto at = line.find("NCCL INFO ");
  if (at == std::string_view::npos) return;
  const auto body = line.substr(at + 10);
  if (body.find(" coll channels") != std::string_view::npos) {
    info.coll_channels = count_before(body, " coll channels", where);
    info.collnet_channels = count_before(body, " collnet channels", where);
    info.nvls_channels = count_before(body, " nvls channels", where);
  }
  // RCCL prints its release in the same INFO line, spelled as its VERSION_STRING "RCCL version : 2.26.6-HEAD:64f48b6"
  // (ROCm/rccl src/init.cc), numbered as the NCCL release it is built on: read as NCCL's own line is.
  std::string_view v;
  if (body.rfind("NCCL version ", 0) == 0) {
    v = body.substr(13);
  } else if (body.rfind("RCCL version", 0) == 0) {
    v = body.substr(12);
    while (!v.empty() && (v.front() == ' ' || v.front() == ':')) v.remove_prefix(1);
  }
  if (!v.empty()) {
    std::string release(v.substr(0, std::min<std::size_t>(v.find_first_of(" \t\r"), 40)));
    // NCCL's init refuses ranks of different releases in one communicator, so two releases in one file are two
    // runs (or a pasted mix): keep the first and name the other, and apply neither (cli apply_trace_release).
    if (info.release.empty()) info.release = std::move(release);
    else if (release.substr(0, release.find('+')) != info.release.substr(0, info.release.find('+')) && info.other_release.empty())
      info.other_release = std::move(release); // "2.18.3+cuda12.2" and "2.18.3+cuda12.4" are one release
  }
  // RCCL's MSCCL loads its algorithm files at init, where it runs at all (msccl_lifecycle.cc mscclInternalSchedulerInit:
  // INFO "Using MSCCL files from <dir>"; ROCm/rccl 0cbce2a and 2025 releases alike).
  if (body.rfind("Using MSCCL files from", 0) == 0) info.msccl_loaded = true;
  // NCCL's IB transport lists the devices it will use once per process at init (src/transport/net_ib.cc
  // ncclIbInit: "NET/IB : Using" then "[%d]%s:%d/%s" per device, NCCL_IB_HCA applied, then "; OOB ..."). The first
  // line is kept: a multi-node log repeats it per host, and the hosts of one job are alike.
  if (info.net_devices.empty() && body.rfind("NET/", 0) == 0) {
    const auto colon = body.find(" : Using ");
    const auto slash_end = body.find_first_of(" :");
    if (colon != std::string_view::npos && colon == slash_end) {
      auto rest = body.substr(colon + 9);
      rest = rest.substr(0, rest.find(';'));
      for (const auto w : words_of(rest)) {
        const auto close = w.find(']');
        if (w.size() < 4 || w.front() != '[' || close == std::string_view::npos || close < 2) continue;
        bool digits = true;
        for (std::size_t i = 1; i < close; ++i) digits = digits && std::isdigit(static_cast<unsigned char>(w[i]));
        if (!digits || close + 1 >= w.size()) continue; // "[RO]" (relaxed ordering) is no device
        auto dev = w.substr(close + 1);
        dev = dev.substr(0, dev.find('/'));
        if (info.net_devices.size() < 64) info.net_devices.emplace_back(dev.substr(0, 40));
      }
      if (!info.net_devices.empty()) info.net_devices_transport = std::string(body.substr(4, std::min<std::size_t>(colon - 4, 16)));
    }
  }
  if (body.rfind("Using network ", 0) == 0) {
    auto net = body.substr(14);
    while (!net.empty() && std::isspace(static_cast<unsigned char>(net.back()))) net.remove_suffix(1);
    info.network = std::string(net.substr(0, 40));
  }
}

} // namespace ccsim::trace

namespace ccsim::trace {

// NCCL_COLLNET_ENABLE is read with the other settings (parse_env_facts): never from a '#' comment or a sentence.
void parse_collnet_facts(std::string_view line, Trace& t, const std::string& where) {
  if (line.find(" INFO [group#:") == std::string_view::npos || line.find("tree_type:") == std::string_view::npos) return;
  ++t.info.sharp_trees;
  const auto g = line.find("group size:");
  if (g == std::string_view::npos) return;
  auto digits = line.substr(g + 11);
  std::size_t n = 0;
  while (n < digits.size() && std::isdigit(static_cast<unsigned char>(digits[n]))) ++n; // all of them: a message quotes the number
  if (n > 0) t.info.sharp_group_size = static_cast<int>(parse_whole(digits.substr(0, n), where + ": SHARP group size", 1, 1 << 24));
}

void parse_env_facts(std::string_view line, Trace& t) {
  // The settings compare and calibrate apply (cli apply_trace_env). NCCL logs each one it reads from the
  // environment as "<NAME> set by environment to <value>" (ncclLoadParam adds a '.', tuning.cc's lists do not).
  // RCCL's own settings carry the RCCL_ prefix (ROCm/rccl 0cbce2a src/include/param.h RCCL_PARAM) and are logged
  // the same way: RCCL_MSCCL_ENABLE (src/misc/msccl/msccl_lifecycle.cc, default 1), RCCL_MSCCL_ENABLE_SINGLE_PROCESS.
  // NCCL_P2P_DISABLE too: ncclGetLevel logs it as "NCCL_P2P_DISABLE set by environment to 1" (src/graph/paths.cc).
  // NCCL_NVLS_CHUNKSIZE / NCCL_NVLSTREE_MAX_CHUNKSIZE: NCCL_PARAMs (src/transport/nvls.cc, src/enqueue.cc), logged so
  // (aws-ofi-nccl's own "Setting NCCL_NVLS_CHUNKSIZE to 512KiB" says what it exports, not what NCCL read).
  // NCCL_MIN/MAX_NCHANNELS (and their legacy NCCL_MIN/MAX_NRINGS: src/graph/connect.cc) and NCCL_MIN/MAX_CTAS
  // (src/init.cc): NCCL_PARAMs, logged the same way. NCCL_NVLS_NCHANNELS too (src/transport/nvls.cc, src/init.cc).
  static constexpr std::string_view kKeys[] = {"NCCL_PROTO",          "NCCL_ALGO",         "NCCL_NVLS_ENABLE",
                                               "NCCL_COLLNET_ENABLE", "RCCL_MSCCL_ENABLE", "RCCL_MSCCL_ENABLE_SINGLE_PROCESS",
                                               "NCCL_P2P_DISABLE",    "NCCL_NVLS_CHUNKSIZE", "NCCL_NVLSTREE_MAX_CHUNKSIZE",
                                               "NCCL_MIN_NCHANNELS",  "NCCL_MAX_NCHANNELS", "NCCL_MIN_CTAS",
                                               "NCCL_MAX_CTAS",       "NCCL_MIN_NRINGS",   "NCCL_MAX_NRINGS",
                                               "NCCL_NVLS_NCHANNELS"};
  const bool nccl_info = line.find("NCCL INFO") != std::string_view::npos;
  for (const std::string_view key : kKeys) {
    auto value_after = [&](std::size_t at) {
      auto v = line.substr(at);
      while (!v.empty() && (v.front() == '"' || v.front() == '\'')) v.remove_prefix(1);
      v = v.substr(0, std::min(v.find_first_of(" \t\"'`"), v.size()));
      while (!v.empty() && v.back() == '.') v.remove_suffix(1);
      return v;
    };
    const std::string by_env = std::string(key) + " set by environment to ", assign = std::string(key) + "=";
    std::string_view v;
    bool found = false;
    if (nccl_info) {
      if (const auto at = line.find(by_env); at != std::string_view::npos)
        v = value_after(at + by_env.size()), found = true;
      else if (const auto eq = line.find(assign); eq != std::string_view::npos)
        v = value_after(eq + assign.size()), found = true;
    } else if (line.rfind(assign, 0) == 0) {          // an environment dump or a launch line
      v = value_after(assign.size()), found = true;
    } else if (line.rfind("export " + assign, 0) == 0) {
      v = value_after(7 + assign.size()), found = true;
    } else if (const auto words = words_of(line); launch_line(words)) {
      // The settings a launch line passes: OpenMPI's -x NAME=value, srun's --export=ALL,NAME=value, MPICH /
      // Intel MPI's -genv NAME value, and NAME=value before the command (env, a shell prefix).
      for (std::size_t i = 0; i < words.size(); ++i) {
        std::string_view w = words[i];
        if ((w == "-genv" || w == "-env") && i + 2 < words.size() && words[i + 1] == key) {
          v = value_after(static_cast<std::size_t>(words[i + 2].data() - line.data())), found = true;
          continue;
        }
        const bool list = w.rfind("--export=", 0) == 0; // srun's list is comma-separated; -x keeps NCCL_PROTO=LL,LL128 whole
        if (list) w.remove_prefix(9);
        for (std::size_t from = 0; from <= w.size();) {
          const auto end = list ? std::min(w.find(',', from), w.size()) : w.size();
          if (auto piece = w.substr(from, end - from); piece.rfind(assign, 0) == 0) {
            piece.remove_prefix(assign.size());
            while (!piece.empty() && (piece.front() == '"' || piece.front() == '\'')) piece.remove_prefix(1);
            while (!piece.empty() && (piece.back() == '"' || piece.back() == '\'' || piece.back() == '\\')) piece.remove_suffix(1);
            v = piece, found = true;
          }
          from = end + 1;
        }
      }
    }
    if (found && !v.empty()) t.env[std::string(key)] = std::string(v.substr(0, 40));
  }
  // NCCL_P2P_LEVEL also where a launch line sets it among others ("CUDA_VISIBLE_DEVICES=1,2 NCCL_P2P_LEVEL=SYS
  // ./all_reduce_perf", "mpirun ... -x NCCL_P2P_LEVEL=NVL"), and as ncclGetLevel logs it ("NCCL_P2P_LEVEL set by
  // environment to SYS"); never from a '#' comment, which may only talk about it.
  constexpr std::string_view kLevel = "NCCL_P2P_LEVEL";
  const std::string by_env = std::string(kLevel) + " set by environment to ";
  std::size_t at = std::string_view::npos, from = 0;
  if (const auto e = line.find(by_env); nccl_info && e != std::string_view::npos) {
    at = e + by_env.size();
  } else if (!nccl_info && !line.empty() && line.front() != '#') {
    for (auto k = line.find(std::string(kLevel) + "="); k != std::string_view::npos; k = line.find(std::string(kLevel) + "=", from)) {
      from = k + 1;
      if (k == 0 || line[k - 1] == ' ' || line[k - 1] == '\t') {
        at = k + kLevel.size() + 1;
        break;
      }
    }
  }
  if (at != std::string_view::npos) {
    auto v = line.substr(at);
    v = v.substr(0, std::min(v.find_first_of(" \t\"'`,."), v.size()));
    if (!v.empty()) t.env[std::string(kLevel)] = std::string(v.substr(0, 8));
  }
}

} // namespace ccsim::trace
