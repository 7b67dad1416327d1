// An nccl-tests output (or NCCL INFO log): parse it as compare and calibrate do.
#include "sim/trace/nccl_tests_trace.hpp"
#include "fuzz_common.hpp"

CCSIM_FUZZ_TARGET({
  const auto t = ccsim::trace::parse_trace(input, "fuzz.txt");
  for (const auto& r : t.rows) (void)ccsim::trace::measured_time_us(r, true);
})
