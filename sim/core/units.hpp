// Units live in the types: time is integer picoseconds, bandwidth integer bytes/s, sizes bytes.
// Integer time makes every run bit-identical and lets tests compare simulation and formula exactly.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace ccsim {

using Time = std::int64_t;       // picoseconds
using Bytes = std::uint64_t;     // bytes
using Bandwidth = std::uint64_t; // bytes per second, per direction

inline constexpr Time kPsPerNs = 1'000;
inline constexpr Time kPsPerUs = 1'000'000;
inline constexpr Time kPsPerSec = 1'000'000'000'000;
inline constexpr Time kNever = INT64_MAX;

// Time to push `bytes` through a pipe of `bw` bytes/s, rounded up to the next picosecond.
// The formulas in sim/cost use this same function, so simulation and closed form agree to the ps.
inline Time transfer_time(Bytes bytes, Bandwidth bw) {
  const unsigned __int128 num = static_cast<unsigned __int128>(bytes) * kPsPerSec;
  return static_cast<Time>((num + bw - 1) / bw);
}

inline double to_us(Time t) { return static_cast<double>(t) / kPsPerUs; }
inline double to_sec(Time t) { return static_cast<double>(t) / kPsPerSec; }
inline Time from_us(double us) { return static_cast<Time>(us * kPsPerUs + (us >= 0 ? 0.5 : -0.5)); }

// Parsers accept what people write: "25GB/s", "100Gbps", "12.5e9" (B/s); "1us", "500ns", "0.7 us";
// "128M", "1G", "4KiB" (K = 1024 as in nccl-tests). They throw ccsim::Error naming `what` on bad input.
Bandwidth parse_bandwidth(std::string_view text, std::string_view what);
Time parse_duration(std::string_view text, std::string_view what);
Bytes parse_size(std::string_view text, std::string_view what);

// A whole decimal number in [lo, hi]: "8" or "-1", never "8abc", "8.9", "+8", " 8" or a number that does not
// fit. Throws ccsim::Error naming `what`.
std::int64_t parse_whole(std::string_view text, std::string_view what, std::int64_t lo, std::int64_t hi);

std::string format_bandwidth(Bandwidth bw); // "25 GB/s"
std::string format_duration(Time t);        // "1.5 us"
std::string format_size(Bytes b);           // "128 MiB", "1.5 GiB", "~204 MiB" (rounded), "1000 B"

} // namespace ccsim
