// --model nccl: NCCL's own cost model (tuning.cc, reference §3) chooses algorithm, protocol and channel
// count per size; the choice is then REPLAYED IN THE EVENT ENGINE rather than only evaluated in closed
// form, so the topology's real routes, shared links and contention still shape the answer:
//   * per protocol, every link's bandwidth becomes NCCL's effective per-lane bandwidth (link_bw_GBps,
//     e.g. 20 GB/s per NVLink2 lane) times the protocol's efficiency relative to Simple (LL 0.5 or the
//     llMaxBw cap, LL128 0.92 or the per-channel cap), and per-message latency becomes NCCL's per-hop
//     latency for the path (hw_latency_us) with the base latency charged once as launch;
//   * the data is split over the CUDA channels NCCL would use at this size (search channels x2, shrunk
//     for small messages by the per-thread thresholds), each channel on one of the searched rings;
//   * each channel's share is cut into NCCL loops of nranks x chunk (chunk per protocol, §3.6) that run
//     as separate jobs on the same links, so the loops pipeline the way NCCL's FIFO slots let them.
// Uncontended and on uniform rings this reproduces NCCL's closed form time = lat + bytes/algBw exactly;
// on mixed-width rings, routed hops or shared NICs the engine shows what the closed form hides.
// Tree allreduce is replayed too: per channel a chain inside each node and a binary tree across nodes,
// pipelined in chunks (TreePipelineAllReduce); on several nodes both ring and tree are replayed and the
// faster kept (see NcclSimulator::run). Ops with neither schedule stay closed form ("(analytic)").
// All numbers come from models/nccl.json (with their sources), none are compiled in.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/metrics/sweep.hpp"
#include "sim/model/params.hpp"
#include "sim/topology/routing.hpp"

namespace ccsim::model {

struct NcclTables {
  nlohmann::json j;
  std::string path;
};
std::string default_nccl_tables_path(); // <data_dir>/models/nccl.json
NcclTables load_nccl_tables(const std::string& path = ""); // throws Error naming the file

// What NCCL's topology search would settle on, derived from ccsim's topology and placement.
struct NcclGraph {
  std::vector<std::vector<int>> rings; // GPU orders of the search channels' rings
  int channels = 1;                    // search channels
  double bw = 0;                       // GB/s per search channel
  double graph_efficiency = 1;         // channels*bw / what the links carry in NCCL units (speed quantisation)
  std::string path = "nvlink";         // intra-node path class: nvlink | pci
  int nodes = 1;
  std::string arch = "volta";
  std::string cpu = "intel";
  bool ll128 = false;
};
NcclGraph nccl_graph(const topology::Topology& t, const NcclTables& tab, const std::vector<std::vector<int>>& placements,
                     const std::string& arch_override);

struct NcclCandidate {
  std::string algo, proto;
  double lat_us = 0, busbw = 0, algbw = 0, time_us = 0;
};
// Every enabled (algorithm, protocol) with NCCL's modelled time for nBytes (the nccl-tests size).
std::vector<NcclCandidate> nccl_candidates(const NcclTables& tab, const NcclGraph& g, schedule::Op op, int ranks,
                                           Bytes nbytes);
NcclCandidate nccl_choose(const NcclTables& tab, const NcclGraph& g, schedule::Op op, int ranks, Bytes nbytes);
// CUDA channels NCCL runs for this size and protocol (search channels x2, shrunk for small messages).
int nccl_channels_used(const NcclTables& tab, const NcclGraph& g, const std::string& algo, const std::string& proto,
                       int ranks, Bytes nbytes);

struct NcclResult {
  NcclCandidate choice;
  int channels_used = 0, loops = 0; // loops: ring loops, or tree segments per channel
  bool simulated = false; // false: closed form only (no ring/tree schedule for the op)
  bool faster_than_nccl_choice = false; // --nccl-algo fastest: the other algorithm replayed faster
  Time time = 0;
};

// NCCL's tree for one channel over the GPUs of a search ring (positions in `ring`; -1 = root): a chain
// inside each node headed by the GPU at the channel's NIC, a binary tree of the heads across nodes
// (`tree` 0, or 1 = its mirror).
std::vector<int> nccl_tree_parents(const std::vector<int>& ring, const std::vector<int>& node_of_gpu, int tree);

// Holds one scaled topology + router per protocol; reuse it across sizes.
class NcclSimulator {
 public:
  // algo: "auto" = NCCL's closed-form pick; "ring"/"tree" = only that algorithm (as NCCL_ALGO);
  // "fastest" = replay NCCL's best ring and best tree, keep the faster.
  NcclSimulator(const topology::Topology& t, const NcclTables& tab, metrics::RunConfig cfg, ParamSet params,
                const std::string& arch_override = "", std::string algo = "auto");
  ~NcclSimulator();
  NcclResult run(metrics::SizePlan plan);
  const NcclGraph& graph() const { return graph_; }

 private:
  struct Proto;
  Proto& proto(const std::string& algo, const std::string& name);
  Time hop_alpha(const std::string& algo, const std::string& proto) const;
  NcclResult replay(const NcclCandidate& choice, metrics::SizePlan plan);
  NcclResult replay_ring(NcclResult r, metrics::SizePlan plan);
  NcclResult replay_tree(NcclResult r, metrics::SizePlan plan);
  NcclResult closed_form(NcclResult r) const;
  const topology::Topology& topo_;
  const NcclTables& tab_;
  metrics::RunConfig cfg_;
  ParamSet params_;
  std::string algo_;
  NcclGraph graph_;
  std::vector<std::unique_ptr<Proto>> protos_;
};

} // namespace ccsim::model
