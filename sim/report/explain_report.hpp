// Rendering `ccsim explain`: plain text, Markdown, LaTeX (for slides) or JSON (for scripts).
#pragma once
#include <string>

#include "sim/metrics/explain.hpp"

namespace ccsim::report {

enum class ExplainFormat { Text, Markdown, Latex, Json, Html };
ExplainFormat explain_format_from(const std::string& s);

std::string render(const metrics::Explanation& e, schedule::Op op, int ranks, ExplainFormat f);
std::string render(const metrics::ExplainSweep& s, schedule::Op op, int ranks, ExplainFormat f);
std::string to_latex(const std::string& expr); // "2(p-1)/p" -> "\frac{2(p-1)}{p}"
// "T = a*alpha + b*n*beta + g*n*gamma" from the coefficients (zero terms omitted), and a bound's the same way.
std::string closed_form(const std::string& a, const std::string& b, const std::string& g);
std::string bound_form(const cost::LowerBound& b);

} // namespace ccsim::report
