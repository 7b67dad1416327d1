#include "sim/model/default_params.hpp"

#include <filesystem>
#include <system_error>

#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"

namespace ccsim::model {

ParamsChoice choose_params(const std::string& flag, const std::string& model) {
  if (flag == "none") return {};
  if (!flag.empty()) return {flag, flag};
  // The default was fitted for the nccl model only; the other models' parameters mean other things.
  if (model != "nccl") return {};
  const std::string path = data_dir() + "/" + kDefaultParamsName;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    fail("--params: the shipped calibration {} is missing (regenerate it with scripts/validate_table.py "
         "--write-default, or run the bare model with --params none)", path);
  return {path, std::string(kDefaultParamsName) + " (shipped default)"};
}

} // namespace ccsim::model
