#include "sim/schedule/dump.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/core/json_file.hpp"

namespace ccsim::schedule {
namespace {

const char* kind_name(Action::Kind k) {
  switch (k) {
    case Action::Kind::Send: return "send";
    case Action::Kind::Recv: return "recv";
    case Action::Kind::RecvReduce: return "recv_reduce";
    case Action::Kind::Copy: return "copy";
  }
  return "?";
}

} // namespace

std::string dump_schedule(const Schedule& s, const std::string& format, std::uint64_t elt) {
  if (format != "text" && format != "json") fail("--dump-schedule: unknown format '{}' (text, json)", format);
  const auto& a = s.args();
  std::vector<Action> acts;
  std::size_t total = 0;
  nlohmann::ordered_json j;
  std::string text = fmt::format("# {} over {} ranks, count {} ({} B per element), root {}\n", to_string(a.op), a.ranks,
                                 a.count, elt, a.root);
  j["op"] = to_string(a.op);
  j["ranks"] = a.ranks;
  j["count"] = a.count;
  j["elt_size"] = elt;
  j["root"] = a.root;
  j["ranks_steps"] = nlohmann::ordered_json::array();
  for (int r = 0; r < a.ranks; ++r) {
    text += fmt::format("rank {} {{\n", r);
    auto steps = nlohmann::ordered_json::array();
    for (int st = 0; s.step(r, st, acts); ++st) {
      total += acts.size();
      if (total > 200000) fail("--dump-schedule: schedule too large to print (over 200000 actions); use fewer ranks");
      text += fmt::format("  step {}:", st);
      auto jacts = nlohmann::ordered_json::array();
      for (const auto& x : acts) {
        if (x.kind == Action::Kind::Copy) {
          text += fmt::format(" copy [{},+{}) <- [{},+{}];", x.off, x.len, x.src_off, x.len);
          jacts.push_back({{"kind", "copy"}, {"off", x.off}, {"len", x.len}, {"src_off", x.src_off}});
        } else {
          const bool out = x.kind == Action::Kind::Send;
          text += fmt::format(" {} {} B {} {} [{},+{});", kind_name(x.kind), x.len * elt, out ? "to" : "from", x.peer,
                              x.off, x.len);
          jacts.push_back({{"kind", kind_name(x.kind)}, {"peer", x.peer}, {"off", x.off}, {"len", x.len},
                           {"bytes", x.len * elt}});
        }
      }
      text += "\n";
      steps.push_back(jacts);
    }
    text += "}\n";
    j["ranks_steps"].push_back(steps);
  }
  return format == "json" ? safe_dump(j, 1) + "\n" : text;
}

} // namespace ccsim::schedule
