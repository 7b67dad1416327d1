#include "sim/cli/parse_errors.hpp"

#include <charconv>
#include <string_view>

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

} // namespace

std::string parse_error_text(const CLI::App& app, const CLI::ParseError& e) {
  const std::string what = e.what();
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
