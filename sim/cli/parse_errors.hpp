#pragma once
#include <string>

#include <CLI/CLI.hpp>

namespace ccsim::cli {

// The one line a command-line parse error prints (without "ccsim: " and the help hint). CLI11's conversion
// error ("Could not convert: --root = 99999999999") names neither the kind of value wanted nor what went wrong;
// this says which: a value out of the option's range, a word where a number goes, or the next flag taken as
// the value because the option's own value was left out.
std::string parse_error_text(const CLI::App& app, const CLI::ParseError& e);

} // namespace ccsim::cli
