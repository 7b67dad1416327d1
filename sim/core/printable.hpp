// Text from files and command lines made safe for a one-line message.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace ccsim {

// `text` with control characters and bytes that are not valid UTF-8 written as \xNN, cut to `max` bytes
// ("..." appended): safe to put into a one-line message. (Defined in json_file.cpp.)
std::string printable(std::string_view text, std::size_t max = 200);

} // namespace ccsim
