#include "sim/core/error.hpp"
#include "sim/topology/import.hpp"
namespace ccsim::topology {
Topology import_rocm_smi(const std::string&, const std::string& file, const ImportOptions&) {
  fail("{}: rocm-smi --showtopo import is not written yet", file);
}
} // namespace ccsim::topology
