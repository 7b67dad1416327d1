#include "sim/cli/parse_errors.hpp"

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

} // namespace

std::string parse_error_text(const CLI::App& app, const CLI::ParseError& e) {
  const std::string what = e.what();
  constexpr std::string_view kPrefix = "Could not convert: ";
  const auto eq = what.find(" = ");
  if (!dynamic_cast<const CLI::ConversionError*>(&e) || what.rfind(kPrefix, 0) != 0 || eq == std::string::npos)
    return what;
  const std::string name = what.substr(kPrefix.size(), eq - kPrefix.size());
  const std::string value = what.substr(eq + 3);
  const auto* opt = find_option(app, name);
  const std::string type = opt ? opt->get_type_name() : "";
  const bool whole = type == "INT" || type == "UINT";
  const std::string_view kind = whole ? "a whole number" : "a number";
  if (value.size() > 1 && value[0] == '-' && !is_whole(value) && value.find_first_of("0123456789.") != 1)
    return fmt::format("{} needs {} after it; it got the next flag, '{}'", name, kind, value);
  if (whole && is_whole(value))
    return fmt::format("{}: {} is out of range (at most {})", name, value,
                       type == "UINT" ? "4294967295" : "2147483647");
  return fmt::format("{}: '{}' is not {}", name, value, kind);
}

} // namespace ccsim::cli
