#pragma once
#include <string>

#include <CLI/CLI.hpp>

namespace ccsim::cli {

// The one line a command-line parse error prints (without "ccsim: " and the help hint). CLI11's conversion
// error ("Could not convert: --root = 99999999999") names neither the kind of value wanted nor what went wrong;
// this says which: a value out of the option's range, a word where a number goes, or the next flag taken as
// the value because the option's own value was left out.
std::string parse_error_text(const CLI::App& app, const CLI::ParseError& e);

// " (see ccsim explain --help)": the help of the (sub)command the line was in, which a parse error points at
// (`ccsim topo shw` needs `ccsim topo --help`, which lists show, gen, ...). One copy for the binary and the
// Python module, whose errors are documented as the line ccsim prints.
std::string help_hint(const CLI::App& app, int argc, const char* const* argv);

// Checks a whole-number option against the command's own range before CLI11 converts it: without it a value
// beyond the variable's type ("--ranks 4294967297" into an int) is refused with the type's limit
// (2147483647), not the range the command takes. Words that are not whole numbers pass to the conversion,
// which says what they are not.
CLI::Validator whole_in_range(long long lo, long long hi);

} // namespace ccsim::cli
