// `ccsim explain --format html`: one self-contained page (inline CSS and SVG, no script, nothing fetched)
// a student can open offline: the schedule drawn step by step, the formula with its numbers, simulated
// vs formula time and the lower bound; for a sweep, time against size per algorithm with the crossovers
// and the selection map marked.
#pragma once
#include <string>

#include "sim/metrics/explain.hpp"
#include "sim/metrics/schedule_picture.hpp"

namespace ccsim::report {

// `picture` may be null (no drawing); `no_picture_why` then says why, in one sentence (or is empty).
std::string render_html(const metrics::Explanation& e, const metrics::SchedulePicture* picture, schedule::Op op, int ranks,
                        const std::string& no_picture_why);
std::string render_html(const metrics::ExplainSweep& s, schedule::Op op, int ranks);

std::string html_escape(const std::string& s);

} // namespace ccsim::report
