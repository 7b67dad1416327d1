#include "sim/cli/parse_errors.hpp"
#include "sim/core/edit_distance.hpp"

#include <charconv>
#include <algorithm>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace ccsim::cli {

namespace {

// The option called `name` ("--root") in `app` or any of its subcommands; null where none has it.
const CLI::Option* find_option(const CLI::App& app, const std::string& name) {
  if (const auto* o = app.get_option_no_throw(name)) return o;
  for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (const auto* o = find_option(*sub, name)) return o;
  return nullptr;
}

bool is_whole(std::string_view v) {
  if (!v.empty() && (v.front() == '-' || v.front() == '+')) v.remove_prefix(1);
  return !v.empty() && v.find_first_not_of("0123456789") == std::string_view::npos;
}

// What an option of CLI11's type name takes, in words.
std::string_view value_words(const std::string& type) {
  if (type == "INT" || type == "UINT") return "a whole number";
  if (type == "FLOAT") return "a number";
  return "a value";
}

// The command's long flag closest to an unknown `--word` ("--ring-order": --ring; "--topology": --topo), or "".
// A flag the word starts with, or that starts with the word, wins (the one nearest its length); else the fewest
// edits, at most a third of it.
// The (sub)command the words were parsed for: the last subcommand chosen, else the app itself.
const CLI::App* parsed_command(const CLI::App& app) {
  const CLI::App* at = &app;
  for (auto subs = at->get_subcommands(); !subs.empty(); subs = at->get_subcommands()) at = subs.back();
  return at;
}

std::string closest_flag(const CLI::App& app, std::string_view word) {
  const CLI::App* at = parsed_command(app);
  std::string best;
  std::size_t best_cost = word.size() / 3 + 1;
  for (const auto* opt : at->get_options()) {
    for (const auto& name : opt->get_lnames()) {
      const std::string flag = "--" + name;
      if (flag == "--help" || flag.size() < 4) continue;
      const bool prefix = word.starts_with(flag) || flag.starts_with(word);
      const std::size_t cost = prefix ? 0 : edit_distance(word, flag);
      // Among prefixes the one nearest the word's length: "--ring-order" is --ring (the longest the word starts
      // with), "--timelin" is --timeline, not the longer --timeline-size that also starts with it.
      const auto gap = [&](const std::string& f) { return f.size() > word.size() ? f.size() - word.size() : word.size() - f.size(); };
      if (cost < best_cost || (cost == best_cost && cost == 0 && gap(flag) < gap(best))) best = flag, best_cost = cost;
    }
  }
  return best;
}

} // namespace

std::string parse_error_text(const CLI::App& app, const CLI::ParseError& e) {
  const std::string what = e.what();
  // "The following arguments were not expected: 0,3,2,1 --ring-order": a flag the command does not have; name it
  // and the flag meant, where one is close (CLI11 lists the extras last first).
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    std::string unknown;
    std::vector<std::string> words;
    const auto colon = what.find(": ");
    for (std::size_t a = colon; a != std::string::npos && a + 1 < what.size();) {
      const auto b = what.find(' ', a + 2);
      const std::string w = what.substr(a + 2, b == std::string::npos ? std::string::npos : b - a - 2);
      if (w.starts_with("--") && w.size() > 2) unknown = w.substr(0, w.find('='));
      if (!w.empty()) words.push_back(w);
      a = b == std::string::npos ? b : b - 1;
    }
    // CLI11 lists the extras last typed first ("json --format"): say them in the order they were typed.
    std::string said = what;
    if (colon != std::string::npos && words.size() > 1) {
      said = what.substr(0, colon + 2);
      for (auto w = words.rbegin(); w != words.rend(); ++w) said += (w == words.rbegin() ? "" : " ") + *w;
    }
    // --json, --csv, --markdown, --html: the output formats are words of --format where the command has it.
    for (const std::string_view f : {"json", "csv", "markdown", "html", "jsonl"})
      if (unknown == fmt::format("--{}", f)) {
        if (parsed_command(app)->get_option_no_throw("--format"))
          return fmt::format("{}: no such flag; did you mean --format {}? {}", unknown, f, said);
        return fmt::format("{}: no such flag here; ccsim's main command writes the prediction as {} "
                           "(ccsim --topo T --op OP --model nccl ... --format {}). {}", unknown, f, f, said);
      }
    if (unknown == "--format" && !parsed_command(app)->get_option_no_throw("--format"))
      return fmt::format("--format: no such flag here; ccsim's main command writes the prediction as json, csv or markdown "
                         "(ccsim --topo T --op OP --model nccl ... --format json). {}", said);
    if (const std::string near = unknown.empty() ? std::string() : closest_flag(app, unknown); !near.empty())
      return fmt::format("{}: no such flag; did you mean {}? {}", unknown, near, said);
    return said;
  }
  // "--root: 1 required INT missing": the option ended the command line without its value.
  if (const auto at = what.find(": 1 required "); at != std::string::npos && what.size() > 8 &&
                                                   what.compare(what.size() - 8, 8, " missing") == 0) {
    const std::string type = what.substr(at + 13, what.size() - 8 - at - 13);
    return fmt::format("{} needs {} after it", what.substr(0, at), value_words(type));
  }
  constexpr std::string_view kPrefix = "Could not convert: ";
  const auto eq = what.find(" = ");
  if (!dynamic_cast<const CLI::ConversionError*>(&e) || what.rfind(kPrefix, 0) != 0 || eq == std::string::npos)
    return what;
  const std::string name = what.substr(kPrefix.size(), eq - kPrefix.size());
  const std::string value = what.substr(eq + 3);
  const auto* opt = find_option(app, name);
  const std::string type = opt ? opt->get_type_name() : "";
  const bool whole = type == "INT" || type == "UINT";
  const std::string_view kind = value_words(whole ? type : "FLOAT");
  if (value.size() > 1 && value[0] == '-' && !is_whole(value) && value.find_first_of("0123456789.") != 1)
    return fmt::format("{} needs {} after it; it got the next flag, '{}'", name, kind, value);
  if (whole && is_whole(value))
    return fmt::format("{}: {} is out of range (at most {})", name, value,
                       type == "UINT" ? "4294967295" : "2147483647");
  return fmt::format("{}: '{}' is not {}", name, value, kind);
}

std::string help_hint(const CLI::App& app, int argc, const char* const* argv) {
  std::string path = "ccsim";
  const CLI::App* at = &app;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    const auto subs = at->get_subcommands([&](const CLI::App* s) { return s->check_name(word); });
    if (subs.empty()) break;
    path += " " + word;
    at = subs.front();
  }
  return " (see " + path + " --help)";
}

CLI::Validator whole_in_range(long long lo, long long hi) {
  return CLI::Validator(
      [lo, hi](std::string& v) {
        if (!is_whole(v)) return std::string();
        std::string_view digits(v);
        if (digits.front() == '+') digits.remove_prefix(1);
        long long n = 0;
        const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
        if (ec == std::errc() && end == digits.data() + digits.size() && n >= lo && n <= hi) return std::string();
        return fmt::format("{} is out of range ({}..{})", v, lo, hi);
      },
      "");
}

} // namespace ccsim::cli
