// fmt's compiled part, built once here instead of in every unit. Header-only fmt (FMT_HEADER_ONLY) kept the
// binary free of libfmt.so and so of a shared libstdc++ (Debian ships no libfmt.a), but it made every unit that
// includes sim/core/error.hpp compile fmt's formatting engine again: ~2 s of CPU each at -O2, ~200 units.
// Every other unit includes fmt's declarations only (no FMT_HEADER_ONLY); this one adds the definitions
// (fmt/format-inl.h, non-inline since FMT_HEADER_ONLY is not defined) and instantiates the templates fmt/format.h
// declares but leaves to its library: what libfmt.so would have provided, for the char functions ccsim calls.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {

// Shortest round-trip digits of a float or double ({} and {:g} of floating-point values).
template auto dragonbox::to_decimal<float>(float) noexcept -> dragonbox::decimal_fp<float>;
template auto dragonbox::to_decimal<double>(double) noexcept -> dragonbox::decimal_fp<double>;

// Locale-dependent separators, declared `extern template` by fmt/format.h ({:L}).
template auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template auto decimal_point_impl<char>(locale_ref) -> char;
template locale_ref::locale_ref(const std::locale&);
template auto locale_ref::get<std::locale>() const -> std::locale;

} // namespace detail
FMT_END_NAMESPACE
