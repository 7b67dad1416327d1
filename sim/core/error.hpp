// One error type for bad input: its message is a single line that names the file or flag and the problem.
// The CLI prints it as "ccsim: <message>" and exits with status 2.
#pragma once
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace ccsim {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg) : std::runtime_error(msg) {}
};

template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> f, Args&&... args) {
  throw Error(fmt::format(f, std::forward<Args>(args)...));
}

} // namespace ccsim
