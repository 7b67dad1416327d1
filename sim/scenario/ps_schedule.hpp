// Parameter-server gradient exchange as schedules the engine replays (one bucket per run):
//   central: every worker pushes its gradient to the server rank (which sums them), then the server
//            sends the updated parameters back (pull). The server is either an extra rank placed on a
//            CPU node (it holds no gradient) or worker 0 itself (GPU0 as server).
//   sharded: every worker owns 1/p of the parameters; push = each worker sends shard j to owner j
//            (the reduce-scatter pattern, direct), pull = each owner sends its shard to all (allgather).
#pragma once
#include <memory>

#include "sim/schedule/schedule.hpp"

namespace ccsim::scenario {

// args.ranks ranks, args.root = the server rank, args.count = elements of the bucket. When the server
// is a worker too (GPU0) its own gradient needs no transfer; when it is an extra CPU rank it has none.
std::unique_ptr<schedule::Schedule> make_ps_central(const schedule::CollArgs& args);
// args.ranks workers, each owning split_block(count, ranks, r).
std::unique_ptr<schedule::Schedule> make_ps_sharded(const schedule::CollArgs& args);

} // namespace ccsim::scenario
