// CollNet: NCCL's in-network reduction across nodes (a CollNet plugin, InfiniBand SHARP in the switches).
// The fabric must have SHARP (topology::Topology::sharp), NCCL_COLLNET_ENABLE=1 (--collnet), at least two
// nodes and equal GPUs per node. Two NCCL algorithms (NCCL 2.30 tuning.cc, search.cc):
//   * CollNet Direct (NVSwitch nodes only): every GPU's share reaches its head over NVLink (all-to-all),
//     each head sends its node's partial sum through its NIC to the SHARP tree once and gets the
//     reduced result back once, then multicasts it to its node's GPUs;
//   * CollNet Chain: the same across nodes, a chain through the node's GPUs inside it.
// NCCL's closed form picks the algorithm; the replay (collnet_plan) runs the in-network part on the
// engine with the switch capability NVLS uses (schedule::SwitchAllReduce, the reduction rank on the
// network switch every head's NIC reaches), beside each node's NVLink reduce-scatter and allgather.
// Allreduce only (CollNet allgather/reducescatter need a plugin with them and one NIC per GPU).
#pragma once
#include <array>
#include <map>
#include <string>
#include <vector>

#include "sim/engine/run_plan.hpp"
#include "sim/metrics/sweep.hpp"
#include "sim/model/nccl/graph.hpp"
#include "sim/model/nccl/tuning.hpp"

namespace ccsim::model::nccl {

// models/sharp.json: NCCL's CollNet constants and what each SHARP switch generation can do.
struct CollNetTables {
  std::string path;
  std::array<double, 2> base_latency_us{};              // [direct, chain]
  std::array<std::array<double, 2>, 3> hw_latency_us{};  // [Path][direct, chain], Simple
  double arity_serialization_us = 0.4;
  int max_direct_heads = 8;
  double direct_hopper_factor = 0.85;
  double thread_threshold = 512;
  int node_threshold = 2;
  double nvls_net_latency_us = 18; // NVLS across nodes over CollNet: hwLatencies[NET][NVLS][Simple]
  struct Generation {
    double aggregation_GBps_per_port = 0; // streaming aggregation rate of one switch port
    int streaming_trees_per_switch = 0;   // 0 = no per-switch limit (documented, not replayed)
    double max_message_bytes = 0;
  };
  std::map<std::string, Generation> generations;
};
const CollNetTables& load_collnet_tables(const std::string& path = ""); // "" = <data_dir>/models/sharp.json

// What NCCL's CollNet graphs settle on for one placement. heads 0: no CollNet here, for the reason in why_not.
struct CollNetGraph {
  int heads = 0;                          // CollNet Direct channels: distinct head GPUs with a NIC, per node
  int chain_channels = 0;                 // CollNet Chain channels (one per NIC path, at most the ring's)
  double bw_intra = 0, bw_inter = 0;      // NCCL's search speeds (GB/s per channel)
  int ppn = 0;                            // GPUs of the placement per node
  bool nvswitch = false;                  // CollNet Direct needs NVSwitch nodes
  std::vector<std::vector<int>> node_gpus; // [node] the placement's GPUs on it, in placement order
  std::vector<std::vector<int>> head_gpus; // [node][head] the GPU whose NIC carries head h's share
  int reduce_switch = -1;                 // the network switch that reduces (reached by every head's NIC)
  double port_GBps = 0;                   // SHARP aggregation rate per switch port (the generation's)
  std::string generation, why_not;
};
CollNetGraph make_collnet_graph(const topology::Topology& t, const Tables& tab, const CollNetTables& ct, const Graph& g,
                                const std::vector<int>& placement);

bool is_collnet(Algo a);
// NCCL's CollNet Direct and Chain candidates (Simple only, allreduce only): bus bandwidth, latency, time.
std::vector<Candidate> collnet_candidates(const CollNetTables& ct, const Graph& g, const CollNetGraph& cg,
                                          schedule::Op op, int ranks, Bytes nbytes);
// CUDA channels CollNet runs: its graph's channels, shrunk for small messages by the 512 B per-thread
// threshold at NCCL_MAX_NTHREADS (640) threads.
int collnet_channels(const CollNetTables& ct, const CollNetGraph& cg, Algo algo, Bytes nbytes);
// NVLS across nodes with CollNet (NVLink SHARP in each node, SHARP in the fabric between them), as NCCL 2.30
// enables it only with CollNet: allreduce on the NVLS(-tree) graph, NCCL's closed form (not replayed).
// Empty when the graph has no multi-node NVLS graph or CollNet cannot run.
std::vector<Candidate> nvls_collnet_candidates(const Tables& tab, const CollNetTables& ct, const Graph& g, const CollNetGraph& cg,
                                               schedule::Op op, int ranks, Bytes nbytes);

// The replay: per head (the first plan.choice.channels heads: NCCL's CollNet channels at this size) a SwitchAllReduce over that head's GPU on every node and the reduction switch
// (the head's 1/heads share, pipelined in `chunk_bytes` segments), concurrent with each node's ring
// reduce-scatter and allgather of the whole vector over its GPUs (NCCL pipelines the three). `plan`
// already names the view topology and router the jobs run on.
engine::RunPlan collnet_plan(engine::RunPlan plan, const CollNetGraph& cg, const metrics::RunConfig& cfg,
                             metrics::SizePlan size, double chunk_bytes, int max_segments);

} // namespace ccsim::model::nccl

namespace ccsim::model::nccl {
// The CollNet graph of the first placement, or one saying why not; models/sharp.json is read only when
// the fabric has SHARP.
CollNetGraph collnet_graph_for(const topology::Topology& t, const Tables& tab, const Graph& g,
                               const std::vector<std::vector<int>>& placements);
// ", CollNet (SHARP v2) 8 head(s) x 48.0/24.0 GB/s" for the graph line; "" without CollNet.
std::string describe_collnet(const CollNetGraph& cg);
// SHARP's streaming aggregation rate per port caps the links into the reduction switch.
void cap_sharp_ports(topology::Topology& view, const CollNetGraph& cg);
} // namespace ccsim::model::nccl
