#include "sim/trace/nccl_tests_json.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/json_file.hpp"
#include "sim/core/json_io.hpp"
#include "sim/trace/line_text.hpp"

namespace ccsim::trace {
namespace {

// A number as the table prints it: whole numbers without a fraction, others in the shortest exact form.
std::string number(const JsonValue& v) { return fmt::format("{}", v.as_double(0)); }

// NCCL_VERSION_CODE: major*1000 + minor*100 + patch before 2.9, major*10000 + minor*100 + patch since (nccl.h).
std::string release_of(std::int64_t code) {
  if (code >= 20900) return fmt::format("{}.{}.{}", code / 10000, code % 10000 / 100, code % 100);
  return fmt::format("{}.{}.{}", code / 1000, code % 1000 / 100, code % 100);
}

} // namespace

std::optional<std::string> nccl_tests_json_as_table(std::string_view text, const std::string& origin) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '{') return std::nullopt;
  const auto doc = json_parse_or_discarded(text);
  if (!doc.is_object() || !doc.contains("results") || !doc.contains("config")) return std::nullopt;
  const JsonValue root(doc, origin);
  const auto config = root["config"];
  std::string out = fmt::format("# nccl-tests JSON report (-J), written as the table nccl-tests prints for it\n");
  // argv[0] is the test binary: "./build/all_reduce_perf".
  if (const auto args = root.get("args"); args && args->size() > 0) {
    std::string prog = args->at(0).as_string();
    if (const auto slash = prog.rfind('/'); slash != std::string::npos) prog = prog.substr(slash + 1);
    out += fmt::format("# Collective test starting: {}\n", text::trim(prog));
  }
  if (const auto v = root.get("nccl_version"); v && v->is_number())
    out += fmt::format("# NCCL version {} (the report's nccl_version {})\n", release_of(v->as_int(0, 1 << 30)), v->as_int(0, 1 << 30));
  const auto threads = config["nthreads"].as_int(1, 1 << 24), gpus = config["ngpus"].as_int(1, 1 << 24);
  out += fmt::format("# nThread {} nGpus {}\n", threads, gpus);
  // jsonBool writes "true" / "false" as strings.
  if (const auto b = config.get("blocking_collectives"); b && (b->is_bool() ? b->as_bool() : b->is_string() && b->as_string() == "true"))
    out += "# Blocking Enabled: wait after each inner iteration\n";
  if (const auto env = root.get("env"))
    for (const auto& e : env->elements())
      if (const auto s = e.as_string(); s.rfind("NCCL_", 0) == 0) out += s + "\n"; // the environment, as an env dump
  // One entry per process, parsed from its first device line (util.cu parseRankInfo): the process's ranks are
  // that rank and the nThread x nGpus - 1 after it.
  if (const auto devices = config.get("devices")) {
    out += "# Using devices\n";
    // Each entry stands for nthreads x ngpus device lines: a report of a few hundred bytes claiming 2^24 threads
    // wrote 16M lines (a GB, a minute, then out of memory). A real report lists what ran; past kMaxDeviceLines
    // (131072 ranks, more than the largest job of any published run) it is refused instead.
    constexpr std::int64_t kMaxDeviceLines = 1 << 17;
    std::int64_t lines = 0;
    for (const auto& d : devices->elements()) {
      const auto rank = d["rank"].as_int(0, 1 << 24), dev = d["device"].as_int(0, 1 << 24);
      lines += std::min<std::int64_t>(threads * gpus, (1 << 24) - rank);
      if (lines > kMaxDeviceLines)
        devices->fail("nthreads {} x ngpus {} for each of {} entries: more than {} ranks", threads, gpus, devices->size(), kMaxDeviceLines);
      for (std::int64_t i = 0; i < threads * gpus && rank + i < (1 << 24); ++i)
        out += fmt::format("#  Rank {} Group {} Pid {} on {} device {} [{}] {}\n", rank + i, d["group"].as_int(0, 1 << 30),
                           d["pid"].as_int(0, 1LL << 40), d["hostname"].as_string(), dev + i, d["device_hex"].as_string(),
                           d["device_info"].as_string());
    }
  }
  const auto results = root["results"];
  bool out_of_place = false, cpu_time = false;
  for (const auto& r : results.elements()) {
    if (const auto h = r.get("out_of_place"); h && h->is_object()) out_of_place = true;
    for (const char* half : {"out_of_place", "in_place"})
      if (const auto h = r.get(half); h && h->is_object() && h->has("cpu_time")) cpu_time = true;
  }
  const char* time = cpu_time ? "cputime" : "time";
  out += out_of_place ? "#  out-of-place  in-place\n" : "#  in-place\n";
  out += fmt::format("#  size count type redop root {0} algbw busbw #wrong{1}\n", time,
                     out_of_place ? fmt::format(" {} algbw busbw #wrong", time) : "");
  for (const auto& r : results.elements()) {
    const auto root_word = r["root"];
    std::string line = fmt::format("{} {} {} {} {}", r["size"].as_uint(0, ~0ULL), r["count"].as_uint(0, ~0ULL), r["type"].as_string(),
                                   r["redop"].as_string(),
                                   root_word.is_string() ? text::trim(root_word.as_string()) : std::to_string(root_word.as_int(-1, 1 << 24)));
    for (const char* half : {"out_of_place", "in_place"}) {
      const auto h = r.get(half);
      if (!h || !h->is_object()) {
        if (std::string_view(half) == "out_of_place" && !out_of_place) continue; // in-place alone in every row
        if (h) h->fail("expected the half's object, as the other rows have");
        r.fail("missing \"{}\"", half);
      }
      const auto wrong = h->get("nwrong");
      line += fmt::format(" {} {} {} {}", number((*h)[cpu_time ? "cpu_time" : "time"]), number((*h)["alg_bw"]), number((*h)["bus_bw"]),
                          wrong && wrong->is_number() ? number(*wrong) : "N/A");
    }
    out += line + "\n";
  }
  return out;
}

} // namespace ccsim::trace
