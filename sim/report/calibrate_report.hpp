// ccsim calibrate's printed report: the fitted parameters (and which were held, and why), the fit's
// quality, every residual, and the error on data held out of the fit.
#pragma once
#include <string>
#include <vector>

#include "sim/model/calibrate.hpp"

namespace ccsim::report {

std::string calibrate_text(const model::FitResult& f, const std::vector<model::Holdout>& cv,
                           const std::vector<model::CalibInput>& in, const std::string& model);

} // namespace ccsim::report
