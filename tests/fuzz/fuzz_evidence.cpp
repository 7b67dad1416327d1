// models/evidence.json (scripts/evidence.py's output; CCSIM_DATA_DIR may point ccsim at another), then the checked
// line for a few classes, as every --model nccl run writes it.
#include "sim/model/evidence.hpp"
#include "fuzz_common.hpp"

CCSIM_FUZZ_TARGET({
  using namespace ccsim;
  const auto runs = model::parse_evidence(std::string(input), "fuzz.json");
  for (const auto& c : {model::EvidenceClass{"h100", 1, "", "allreduce", 8}, model::EvidenceClass{"h100", 2, "ib", "allreduce", 16},
                        model::EvidenceClass{"", 1, "", "allgather", 4}, model::EvidenceClass{"mi300x", 64, "roce", "alltoall", 512}})
    (void)model::check(c, runs);
})
