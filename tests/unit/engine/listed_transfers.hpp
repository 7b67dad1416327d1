// Engine tests whose times are worked out by hand: a schedule written out as a list of transfers, run by
// the flow model on GPUs around one switch (one link per GPU, its own capacity per direction).
#pragma once
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "sim/engine/engine.hpp"
#include "sim/topology/routing.hpp"

namespace ccsim::test {

// The arguments of a hand-written test schedule over `ranks` ranks: sizes count bytes (1-byte elements).
inline schedule::CollArgs byte_args(int ranks) {
  schedule::CollArgs a;
  a.ranks = ranks;
  a.elt_size = 1;
  return a;
}

struct ListedTransfer {
  int step, src, dst;
  Bytes bytes;
};

// Rank r's step s posts the transfers of step s that r sends or receives, in the list's order; a rank
// ends after the last step that names it.
class ListedSteps final : public schedule::Schedule {
 public:
  ListedSteps(int ranks, std::vector<ListedTransfer> list) : Schedule(byte_args(ranks)), list_(std::move(list)) {}
  bool step(int r, int s, std::vector<schedule::Action>& out) const override {
    out.clear();
    bool any_later = false;
    for (const ListedTransfer& t : list_) {
      if (t.src != r && t.dst != r) continue;
      if (t.step > s) any_later = true;
      if (t.step != s) continue;
      if (t.src == r) schedule::send(out, t.dst, {0, t.bytes});
      if (t.dst == r) schedule::recv(out, t.src, {0, t.bytes});
    }
    return !out.empty() || any_later;
  }

 private:
  std::vector<ListedTransfer> list_;
};

// When each (rank, step) ended.
struct StepEnds final : engine::Observer {
  std::map<std::pair<int, int>, Time> end;
  void on_step(int, int rank, int step, Time, Time e) override { end[{rank, step}] = e; }
};

// GPUs 0..n-1 on one switch, GPU g's link `bw[g]` per direction with latency `lat`; the list run by the
// flow model under `mp`.
inline std::map<std::pair<int, int>, Time> run_on_switch(const std::vector<Bandwidth>& bw, Time lat, engine::ModelParams mp,
                                                         std::vector<ListedTransfer> list) {
  topology::Topology topo;
  const int n = static_cast<int>(bw.size());
  for (int g = 0; g < n; ++g) topo.add_node("gpu" + std::to_string(g), topology::NodeKind::Gpu);
  const int sw = topo.add_node("switch", topology::NodeKind::NetSwitch);
  for (int g = 0; g < n; ++g) topo.add_link(g, sw, topology::LinkType::Ideal, bw[static_cast<std::size_t>(g)], lat);
  topology::Router router(topo);
  engine::Engine eng(topo, router, mp, *engine::find_network("flow"));
  StepEnds obs;
  eng.add_observer(&obs);
  ListedSteps sched(n, std::move(list));
  engine::Job job;
  job.schedule = &sched;
  job.elt_size = 1;
  for (int g = 0; g < n; ++g) job.node_of_rank.push_back(topo.gpu_node(g));
  eng.run(std::span<const engine::Job>(&job, 1));
  return obs.end;
}

} // namespace ccsim::test
