// A log's lines read as facts of the run (what compare and calibrate take from a trace beside its rows): NCCL INFO
// lines (channels, network, release, SHARP, MSCCL), NCCL_* settings as the log or launch line states them, the
// -g of a quoted command line and the GPU a device line names. Each line on its own, as the trace reader passes them.
#include "sim/topology/import.hpp"
#include "sim/trace/nccl_tests_options.hpp"
#include "sim/trace/nccl_tests_trace.hpp"
#include "fuzz_common.hpp"

CCSIM_FUZZ_TARGET({
  using namespace ccsim;
  trace::Trace t;
  std::size_t at = 0;
  for (int n = 1; at <= input.size() && n <= 4096; ++n) {
    const auto end = std::min(input.find('\n', at), input.size());
    const auto line = input.substr(at, end - at);
    at = end + 1;
    const std::string where = "fuzz.txt:" + std::to_string(n);
    try {
      trace::parse_info_facts(line, t.info, where);
      trace::parse_collnet_facts(line, t, where);
      trace::parse_env_facts(line, t);
    } catch (const Error&) {
    }
    (void)trace::ngpus_option(line);
    (void)trace::nccl_tests_number(std::string(line));
    (void)topology::gpu_product_on_line(line);
  }
})
