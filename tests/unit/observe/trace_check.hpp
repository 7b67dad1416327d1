// What the Chrome trace-event format requires of the events ccsim writes (the "JSON Object Format":
// traceEvents with ph X / C / M), plus what viewers need to draw tracks correctly: on one (pid, tid)
// track, two complete slices either nest or are disjoint. Returns the problems found, empty if none.
#pragma once
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ccsim::testing {

inline std::vector<std::string> check_trace(const nlohmann::json& j, double makespan_us) {
  std::vector<std::string> bad;
  if (!j.is_object() || !j.contains("traceEvents") || !j["traceEvents"].is_array()) return {"no traceEvents array"};
  // Perfetto takes "displayTimeUnit" as the unit of ts (the format says microseconds): leave it out.
  if (j.contains("displayTimeUnit")) bad.push_back("displayTimeUnit changes how Perfetto reads ts");
  // Slices in integer nanoseconds, so "touching" is exact.
  auto ns = [](const nlohmann::json& v) { return static_cast<long long>(std::llround(v.get<double>() * 1000.0)); };
  std::map<std::pair<long long, long long>, std::vector<std::pair<long long, long long>>> tracks;
  std::map<std::pair<long long, long long>, std::vector<std::pair<double, double>>> tracks_us; // as DevTools adds
  std::set<std::pair<long long, long long>> named_threads;
  std::set<long long> named_processes;
  static const std::set<std::string> kMeta = {"process_name", "thread_name", "process_sort_index", "thread_sort_index"};
  std::size_t i = 0;
  for (const auto& e : j["traceEvents"]) {
    const std::string at = fmt::format("event {}", i++);
    if (!e.is_object()) { bad.push_back(at + ": not an object"); continue; }
    if (!e.contains("ph") || !e["ph"].is_string()) { bad.push_back(at + ": no ph"); continue; }
    if (!e.contains("name") || !e["name"].is_string()) bad.push_back(at + ": no name");
    if (!e.contains("pid") || !e["pid"].is_number_integer()) { bad.push_back(at + ": pid must be an integer"); continue; }
    if (!e.contains("tid") || !e["tid"].is_number_integer()) { bad.push_back(at + ": tid must be an integer"); continue; }
    if (e.contains("args") && !e["args"].is_object()) bad.push_back(at + ": args must be an object");
    const std::string ph = e["ph"];
    const long long pid = e["pid"], tid = e["tid"];
    auto in_run = [&](const char* key) {
      if (!e.contains(key) || !e[key].is_number()) return bad.push_back(fmt::format("{}: {} must be a number", at, key)), false;
      return true;
    };
    if (ph == "X") {
      if (!in_run("ts") || !in_run("dur")) continue;
      if (!e.contains("cat") || !e["cat"].is_string()) bad.push_back(at + ": slice without cat");
      const double ts = e["ts"], dur = e["dur"];
      if (ts < 0 || dur < 0) bad.push_back(at + ": negative ts or dur");
      if (ts + dur > makespan_us + 1e-6) bad.push_back(fmt::format("{}: ends at {} after the run ({} us)", at, ts + dur, makespan_us));
      tracks[{pid, tid}].push_back({ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])});
      tracks_us[{pid, tid}].push_back({ts, ts + dur});
    } else if (ph == "C") {
      if (!in_run("ts")) continue;
      const double ts = e["ts"];
      if (ts < 0 || ts > makespan_us + 1e-6) bad.push_back(at + ": counter outside the run");
      if (!e.contains("args") || !e["args"].is_object() || e["args"].empty()) bad.push_back(at + ": counter without values");
      else
        for (auto& [k, v] : e["args"].items())
          if (!v.is_number()) bad.push_back(fmt::format("{}: counter value {} is not a number", at, k));
    } else if (ph == "M") {
      const std::string name = e.value("name", "");
      if (!kMeta.count(name)) bad.push_back(at + ": unknown metadata " + name);
      else if (name.ends_with("_name") && !(e.contains("args") && e["args"].contains("name") && e["args"]["name"].is_string()))
        bad.push_back(at + ": metadata without args.name");
      else if (name.ends_with("_sort_index") &&
               !(e.contains("args") && e["args"].contains("sort_index") && e["args"]["sort_index"].is_number_integer()))
        bad.push_back(at + ": metadata without integer args.sort_index");
      if (name == "thread_name") named_threads.insert({pid, tid});
      if (name == "process_name") named_processes.insert(pid);
    } else {
      bad.push_back(at + ": ph '" + ph + "' is not one ccsim writes (X, C, M)");
    }
  }
  // Both as nanoseconds (Perfetto rounds to ns) and as floating-point microseconds (DevTools).
  auto nesting = [&](auto track, auto v) {
    std::sort(v.begin(), v.end(), [](auto a, auto b) { return a.first < b.first || (a.first == b.first && a.second > b.second); });
    std::vector<decltype(v[0].second)> open; // ends of the enclosing slices
    for (auto [b, e] : v) {
      while (!open.empty() && open.back() <= b) open.pop_back();
      if (!open.empty() && e > open.back()) {
        bad.push_back(fmt::format("track {}/{}: slice [{}, {}] partially overlaps one ending at {}", track.first, track.second,
                                  b, e, open.back()));
        return;
      }
      open.push_back(e);
    }
  };
  for (auto& [track, v] : tracks_us) nesting(track, v);
  for (auto& [track, v] : tracks) {
    if (!named_threads.count(track)) bad.push_back(fmt::format("track {}/{} has no thread_name", track.first, track.second));
    if (!named_processes.count(track.first)) bad.push_back(fmt::format("process {} has no process_name", track.first));
    nesting(track, v);
  }
  return bad;
}

} // namespace ccsim::testing
