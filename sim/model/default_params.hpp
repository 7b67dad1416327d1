// The shipped class-level calibration (models/params-nccl-default.json): what `--model nccl` applies when
// the user names no --params, so that a machine ccsim has never seen gets the best mode by default.
// It is made by `scripts/validate_table.py --write-default` (the command is inside the file): one fit per
// machine class over all of that class's traces, and each parameter the median over the classes' fits.
#pragma once
#include <string>

namespace ccsim::model {

// Where the shipped default lives, relative to the data folder (sim/core/data_dir.hpp).
inline constexpr const char* kDefaultParamsName = "models/params-nccl-default.json";

struct ParamsChoice {
  std::string path;  // file to load; "" = no parameter set
  std::string label; // how outputs name it ("" when none)
};

// `--params` as given ("" = not given, "none" = the bare model) and --model: the user's file, the shipped
// default (--model nccl only), or nothing. Throws Error naming the file when the shipped default is missing.
ParamsChoice choose_params(const std::string& flag, const std::string& model);

} // namespace ccsim::model
