#include "sim/model/launch_overlap.hpp"

namespace ccsim::model {

bool launch_overlaps(const std::string& kind) { return kind == "hip/gN" || kind == "cuda/gN-parallel"; }

} // namespace ccsim::model
