// NCCL_PROTO as NCCL reads it: which of LL, LL128 and Simple its tuner may pick (--nccl-proto, or the trace's
// own NCCL_PROTO in compare). NCCL (src/graph/tuning.cc ncclTopoTuneModel, 2.2x; src/tuning/cost_model.cc
// later) logs "NCCL_PROTO set by environment to <v>" and hands <v> to parseList: a comma-separated,
// case-insensitive list of ncclProtoStr names (LL, LL128, Simple); a leading ^ turns the list into the ones
// excluded. parseList also takes per-collective lists ("allreduce:simple;..."), which ccsim does not.
#pragma once
#include <string>
#include <string_view>

#include "sim/model/nccl/tables.hpp"

namespace ccsim::model::nccl {

struct ProtoSet {
  PerProto<bool> on{true, true, true}; // by Proto
  std::string stated;                  // the list as given ("" = NCCL's default: no restriction)
  bool restricted() const { return !stated.empty(); }
  bool allows(Proto p) const { return on[static_cast<std::size_t>(p)]; }
  // "LL,Simple": the protocols left, in NCCL's order.
  std::string allowed_names() const;
};

// "" (or "auto") = no restriction. Unknown names, an empty list or one that leaves no protocol throw an Error
// naming `flag`, where NCCL would ignore the unknown name or fail at its first collective.
ProtoSet proto_set_from(std::string_view s, std::string_view flag = "--nccl-proto");

} // namespace ccsim::model::nccl
