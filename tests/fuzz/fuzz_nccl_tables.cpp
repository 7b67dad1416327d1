// NCCL tables (models/nccl.json's format). The loader takes a path, so the input goes through a file.
#include <cstdio>
#include <unistd.h>

#include "sim/model/nccl/tables.hpp"
#include "fuzz_common.hpp"

CCSIM_FUZZ_TARGET({
  static const std::string path = "/tmp/ccsim-fuzz-nccl-" + std::to_string(::getpid()) + ".json";
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(input.data(), 1, input.size(), f);
    std::fclose(f);
  }
  (void)ccsim::model::nccl::parse_tables(path);
})
