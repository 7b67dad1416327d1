#include "sim/scenario/hybrid_step.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/engine/run_plan.hpp"
#include "sim/model/registry.hpp"
#include "sim/scenario/pipeline.hpp"
#include "sim/topology/gpu_catalogue.hpp"

namespace ccsim::scenario {
using schedule::Op;

std::string_view to_string(CommKind k) {
  switch (k) {
    case CommKind::Tp: return "tp";
    case CommKind::Cp: return "cp";
    case CommKind::Ep: return "ep";
    case CommKind::Pp: return "pp";
    case CommKind::Dp: return "dp";
    case CommKind::Zero: return "zero3";
  }
  return "?";
}

namespace {

constexpr std::uint32_t kNoJob = ~0u;
// A run this large (ranks summed over jobs) would take minutes and gigabytes on the engine (the 39.1B
// Megatron row has about 4.5 million and takes 0.8 GB).
constexpr std::uint64_t kMaxRanks = 8'000'000;

// A job with nothing to send: the point where a program waits for several jobs (joins) or a time.
class EmptySchedule final : public schedule::Schedule {
 public:
  EmptySchedule() : Schedule(schedule::CollArgs{}) {}
  bool step(int, int, std::vector<schedule::Action>& out) const override { return out.clear(), false; }
};

// Rank 0 sends `count` elements to rank 1 (a pipeline stage's activation or gradient).
class P2pSchedule final : public schedule::Schedule {
 public:
  explicit P2pSchedule(schedule::CollArgs a) : Schedule(std::move(a)) {}
  bool step(int rank, int s, std::vector<schedule::Action>& out) const override {
    out.clear();
    if (s > 0) return false;
    if (rank == 0) schedule::send(out, 1, {0, args_.count});
    else schedule::recv(out, 0, {0, args_.count});
    return true;
  }
};

metrics::DataType dtype_of(Bytes size) {
  switch (size) {
    case 1: return {"int8", 1};
    case 2: return {"bfloat16", 2};
    case 8: return {"double", 8};
    default: return {"float", 4};
  }
}

// When something happens: `offset` after job `job` finished (kNoJob: after time 0).
struct Mark {
  std::uint32_t job = kNoJob;
  Time offset = 0;
};

// One tensor-parallel group's program: its GPUs (tp ranks) and where it stands.
struct Chain {
  std::vector<int> gpus;
  Mark at;          // the program's next instruction may start here
  bool recorded = false;
  Time compute = 0, bubble = 0;
  std::map<CommKind, Time> exposed;
};

enum class RecKind { Compute, Blocking, Wait, Async };
struct Rec {
  RecKind kind;
  int stage;
  std::string track, label;
  Mark ready;                         // Compute: its start; Blocking/Wait: when the chain was ready
  Time dur = 0;                       // Compute only
  std::uint32_t first = kNoJob, join = kNoJob; // the collective's first job and its join
  Chain* chain = nullptr;
  CommKind comm = CommKind::Tp;
};

struct PlanEntry {
  std::vector<engine::Job> jobs; // placed on the drawn topology, no start, no `after`
  Time fixed = 0;                // the model's launch/base latency, before the data moves
  std::optional<Time> closed;    // no replay: the model's own time
};

class StepBuilder {
 public:
  StepBuilder(const Scenario& s, const topology::Topology& topo)
      : s_(s), h_(*s.hybrid), m_(h_.model), p_(h_.par), topo_(topo), router_(topo),
        model_(model::make_model(s.model_name, topo, {})) {
    params_ = s.model;
    const auto* net = engine::find_network(s.model_name);
    network_ = net ? net : &engine::fifo_network();
    if (!net) params_.semantics = engine::Semantics::mpi; // nccl: NCCL's lockstep replay (sim/model/nccl/builder.cpp)
  }

  HybridResult run();

 private:
  int gpu_of(int tp, int cp, int ep, int dpx, int pp) const;
  void make_chains();
  std::uint32_t add_job(engine::Job job) {
    total_ranks_ += job.node_of_rank.size();
    if (total_ranks_ > kMaxRanks) too_big();
    jobs_.push_back(std::move(job));
    return static_cast<std::uint32_t>(jobs_.size() - 1);
  }
  [[noreturn]] void too_big() const {
    fail("scenario {}: the step needs more than {:.0e} ranks in engine jobs (collectives x group size): use fewer "
         "micro-batches (a larger micro_batch), fewer layers or a plain model with one ring per collective",
         s_.origin, static_cast<double>(kMaxRanks));
  }
  std::uint32_t join(std::vector<std::pair<std::uint32_t, Time>> after, Time start, int gpu);
  const PlanEntry& plan(Op op, const std::vector<int>& gpus, Bytes size, Bytes elt);
  // Adds a collective that starts when every `ready` mark has passed; returns its join job.
  std::uint32_t collective(CommKind kind, Op op, const std::vector<int>& gpus, Bytes size, Bytes elt, const std::vector<Mark>& ready,
                           std::uint32_t* first);
  static std::pair<std::uint32_t, Time> dep(const Mark& m) { return {m.job, m.offset}; }

  // Program instructions (every chain of a stage runs the same ones at once).
  void compute(std::vector<Chain*>& cs, int stage, Time dur, const std::string& label);
  void blocking(std::vector<Chain*>& cs, int stage, CommKind kind, Op op, Bytes size, Bytes elt,
                const std::vector<std::vector<std::pair<Chain*, int>>>& groups, const std::string& label);
  void tp_collective(std::vector<Chain*>& cs, int stage, Op op, Bytes size, const std::string& label);
  void layer_forward(std::vector<Chain*>& cs, int stage, std::uint64_t layer, int micro, bool recompute);
  void layer_backward(std::vector<Chain*>& cs, int stage, std::uint64_t layer, int micro);
  bool run_op(int stage, const PipeOp& op);
  void gradient_buckets(int stage, std::uint64_t layer, bool flush);
  void finish_stage(int stage);

  std::vector<std::vector<std::pair<Chain*, int>>> groups_over(int stage, char dim) ;
  Time seconds(double flops) const {
    return static_cast<Time>(std::llround(flops / (peak_ * h_.efficiency) * kPsPerSec));
  }

  const Scenario& s_;
  const HybridSpec& h_;
  const Transformer& m_;
  const Parallel& p_;
  const topology::Topology& topo_;
  topology::Router router_;
  std::unique_ptr<metrics::PlanBuilder> model_;
  const engine::NetworkEntry* network_;
  engine::ModelParams params_;
  double peak_ = 0;
  std::vector<int> gpus_;      // rank -> GPU index
  std::vector<int> dims_;      // order of tp, cp, ep, dp, pp as sizes
  std::vector<std::vector<Chain>> stages_; // [pp][cp x ep x dpx]
  std::vector<engine::Job> jobs_;
  std::vector<std::unique_ptr<schedule::Schedule>> own_;
  std::vector<std::unique_ptr<engine::RunPlan>> kept_;
  std::map<std::tuple<int, std::vector<int>, Bytes, Bytes>, PlanEntry> plans_;
  std::uint64_t total_ranks_ = 0;
  std::map<std::tuple<bool, int, int, int>, std::uint32_t> sends_; // (forward, micro, virtual stage, chain) -> join
  std::vector<Rec> recs_;
  HybridResult res_;
  // Data-parallel gradient buckets per stage: elements filled so far, and each group's last exchange.
  std::vector<double> fill_dense_, fill_expert_;
  std::map<std::pair<int, int>, std::uint32_t> dp_last_; // (stage, group index) -> last join
  std::vector<std::vector<std::uint64_t>> buckets_;      // per stage: elements of each dense bucket sent
};

int StepBuilder::gpu_of(int tp, int cp, int ep, int dpx, int pp) const {
  const int coord[5] = {tp, cp, ep, dpx, pp};
  const int size[5] = {p_.tp, p_.cp, p_.ep, p_.dp / p_.ep, p_.pp};
  static const char* names[5] = {"tp", "cp", "ep", "dp", "pp"};
  int rank = 0, stride = 1;
  std::stringstream ss(p_.order);
  for (std::string tok; std::getline(ss, tok, '-');)
    for (int d = 0; d < 5; ++d)
      if (tok == names[d]) {
        rank += coord[d] * stride;
        stride *= size[d];
      }
  return gpus_[static_cast<std::size_t>(rank)];
}

void StepBuilder::make_chains() {
  const int world = p_.world();
  std::vector<int> order = s_.gpus;
  if (order.empty()) {
    order.resize(static_cast<std::size_t>(topo_.num_gpus()));
    std::iota(order.begin(), order.end(), 0);
  }
  for (int g : order)
    if (g >= topo_.num_gpus()) fail("scenario {}: gpus: GPU {} does not exist on {}", s_.origin, g, topo_.name);
  if (world > static_cast<int>(order.size()))
    fail("scenario {}: parallel: tp x cp x pp x dp = {} GPUs, but {} has {}", s_.origin, world, topo_.name, order.size());
  gpus_.assign(order.begin(), order.begin() + world);
  const int dpx = p_.dp / p_.ep;
  stages_.assign(static_cast<std::size_t>(p_.pp), {});
  for (int pp = 0; pp < p_.pp; ++pp)
    for (int cp = 0; cp < p_.cp; ++cp)
      for (int ep = 0; ep < p_.ep; ++ep)
        for (int d = 0; d < dpx; ++d) {
          Chain c;
          for (int t = 0; t < p_.tp; ++t) c.gpus.push_back(gpu_of(t, cp, ep, d, pp));
          c.recorded = cp == 0 && ep == 0 && d == 0;
          stages_[static_cast<std::size_t>(pp)].push_back(std::move(c));
        }
}

std::uint32_t StepBuilder::join(std::vector<std::pair<std::uint32_t, Time>> after, Time start, int gpu) {
  for (const auto& d : after)
    if (d.first == kNoJob) start = std::max(start, d.second); // after time 0
  std::erase_if(after, [](const auto& d) { return d.first == kNoJob; });
  own_.push_back(std::make_unique<EmptySchedule>());
  engine::Job j;
  j.schedule = own_.back().get();
  j.node_of_rank = {topo_.gpu_node(gpu)};
  j.start = start;
  j.after = std::move(after);
  return add_job(std::move(j));
}

const PlanEntry& StepBuilder::plan(Op op, const std::vector<int>& gpus, Bytes size, Bytes elt) {
  const auto key = std::make_tuple(static_cast<int>(op), gpus, size, elt);
  if (auto it = plans_.find(key); it != plans_.end()) return it->second;
  metrics::RunConfig cfg;
  cfg.op = op;
  cfg.dtype = dtype_of(elt);
  cfg.model_name = s_.model_name;
  cfg.model = s_.model;
  cfg.placements = {gpus};
  const auto* a = schedule::find_algorithm(op, s_.algorithm == "auto" ? "ring" : s_.algorithm);
  if (!a) a = schedule::find_algorithm(op, op == Op::AllToAll ? "pairwise" : "ring");
  if (!a) fail("scenario {}: algorithm: no '{}' for {}", s_.origin, s_.algorithm, schedule::to_string(op));
  cfg.algo = a->name;
  const auto ranks = static_cast<Bytes>(gpus.size());
  const std::uint64_t count = op == Op::AllReduce ? size / elt : size / (elt * ranks);
  auto plans = model_->plans(cfg, metrics::SizePlan{std::max<std::uint64_t>(count, 1), size});
  PlanEntry e;
  auto kept = std::make_unique<engine::RunPlan>(std::move(plans.front()));
  e.fixed = kept->fixed;
  e.closed = kept->closed_form;
  // The model may replay on its own view of the machine; its jobs run here on the drawn links, with the
  // same node names (the view is a copy with edited link speeds).
  for (const auto& j : kept->jobs) {
    engine::Job placed = j;
    if (kept->topo && kept->topo != &topo_)
      for (int& n : placed.node_of_rank) {
        const auto id = topo_.find_node(kept->topo->nodes[static_cast<std::size_t>(n)].name);
        if (!id) fail("scenario {}: network.model {}: node '{}' of its view is not on {}", s_.origin, s_.model_name,
                      kept->topo->nodes[static_cast<std::size_t>(n)].name, topo_.name);
        n = *id;
      }
    e.jobs.push_back(std::move(placed));
  }
  kept_.push_back(std::move(kept));
  return plans_.emplace(key, std::move(e)).first->second;
}

std::uint32_t StepBuilder::collective(CommKind kind, Op op, const std::vector<int>& gpus, Bytes size, Bytes elt,
                                      const std::vector<Mark>& ready, std::uint32_t* first) {
  // What rank 0's GPU puts on the wire: a ring allreduce sends 2(n-1)/n of the buffer, the others (n-1)/n.
  if (std::find(gpus.begin(), gpus.end(), gpus_.front()) != gpus.end()) {
    const double n = static_cast<double>(gpus.size());
    res_.bytes_per_gpu[kind] += static_cast<Bytes>(std::llround(static_cast<double>(size) * (op == Op::AllReduce ? 2 : 1) * (n - 1) / n));
  }
  std::vector<std::pair<std::uint32_t, Time>> after;
  for (const auto& m : ready) after.push_back(dep(m));
  if (gpus.size() < 2 || size == 0) {
    const std::uint32_t j = join(after, 0, gpus.front());
    if (first) *first = j;
    return j;
  }
  const PlanEntry& e = plan(op, gpus, size, elt);
  if (e.closed) { // nothing to replay: the collective is a wait of the model's time
    for (auto& d : after) d.second += *e.closed;
    const std::uint32_t j = join(after, 0, gpus.front());
    if (first) *first = j;
    return j;
  }
  std::vector<std::pair<std::uint32_t, Time>> launched = after;
  for (auto& d : launched) d.second += e.fixed;
  std::erase_if(launched, [](const auto& d) { return d.first == kNoJob; });
  std::vector<std::pair<std::uint32_t, Time>> done;
  for (const auto& tmpl : e.jobs) {
    engine::Job j = tmpl;
    j.after = launched;
    j.start = e.fixed;
    for (const auto& d : after)
      if (d.first == kNoJob) j.start = std::max(j.start, d.second + e.fixed);
    done.emplace_back(add_job(std::move(j)), 0);
    if (first && done.size() == 1) *first = done.front().first;
  }
  return join(done, 0, gpus.front());
}

// Chains of `stage` grouped along one dimension, per tensor-parallel index: 'c' context (same ep, dp),
// 'e' expert (same cp, dp), 'd' dense data-parallel (all chains: cp x ep x dp), 'x' expert data-parallel
// (same ep: cp x dp). Chain index in a stage = (cp E + ep) D + dp.
std::vector<std::vector<std::pair<Chain*, int>>> StepBuilder::groups_over(int stage, char dim) {
  auto& cs = stages_[static_cast<std::size_t>(stage)];
  const int E = p_.ep, D = p_.dp / p_.ep;
  std::map<std::pair<int, int>, std::vector<std::pair<Chain*, int>>> by;
  for (int c = 0; c < p_.cp; ++c)
    for (int e = 0; e < E; ++e)
      for (int d = 0; d < D; ++d) {
        Chain* ch = &cs[static_cast<std::size_t>((c * E + e) * D + d)];
        const int key = dim == 'c' ? e * D + d : dim == 'e' ? c * D + d : dim == 'd' ? 0 : e;
        for (int t = 0; t < p_.tp; ++t) by[{key, t}].emplace_back(ch, t);
      }
  std::vector<std::vector<std::pair<Chain*, int>>> out;
  for (auto& [k, g] : by) out.push_back(std::move(g));
  return out;
}

void StepBuilder::compute(std::vector<Chain*>& cs, int stage, Time dur, const std::string& label) {
  for (Chain* c : cs) {
    if (c->recorded) recs_.push_back({RecKind::Compute, stage, "compute", label, c->at, dur, kNoJob, kNoJob, c, CommKind::Tp});
    c->compute += dur;
    c->at.offset += dur;
  }
}

void StepBuilder::blocking(std::vector<Chain*>& cs, int stage, CommKind kind, Op op, Bytes size, Bytes elt,
                           const std::vector<std::vector<std::pair<Chain*, int>>>& groups, const std::string& label) {
  std::map<Chain*, std::vector<std::pair<std::uint32_t, Time>>> joins;
  std::map<Chain*, std::uint32_t> firsts;
  for (const auto& g : groups) {
    std::vector<int> gpus;
    std::vector<Mark> ready;
    for (const auto& [c, t] : g) {
      gpus.push_back(c->gpus[static_cast<std::size_t>(t)]);
      if (std::find_if(ready.begin(), ready.end(), [&](const Mark& m) { return m.job == c->at.job && m.offset == c->at.offset; }) == ready.end())
        ready.push_back(c->at);
    }
    std::uint32_t first = kNoJob;
    const std::uint32_t j = collective(kind, op, gpus, size, elt, ready, &first);
    ++res_.collectives[kind];
    for (const auto& [c, t] : g) {
      joins[c].emplace_back(j, 0);
      firsts.emplace(c, first);
    }
  }
  for (Chain* c : cs) {
    auto it = joins.find(c);
    if (it == joins.end()) continue;
    const std::uint32_t done = it->second.size() == 1 ? it->second.front().first : join(it->second, 0, c->gpus.front());
    if (c->recorded) recs_.push_back({RecKind::Blocking, stage, std::string(to_string(kind)), label, c->at, 0, firsts[c], done, c, kind});
    c->at = {done, 0};
  }
}

void StepBuilder::tp_collective(std::vector<Chain*>& cs, int stage, Op op, Bytes size, const std::string& label) {
  if (p_.tp < 2) return;
  std::vector<std::vector<std::pair<Chain*, int>>> groups;
  for (Chain* c : cs) {
    groups.emplace_back();
    for (int t = 0; t < p_.tp; ++t) groups.back().emplace_back(c, t);
  }
  blocking(cs, stage, CommKind::Tp, op, size, m_.dtype_bytes, groups, label);
}

void StepBuilder::layer_forward(std::vector<Chain*>& cs, int stage, std::uint64_t layer, int micro, bool recompute) {
  const std::string at = fmt::format("{}{} L{}", recompute ? "R" : "F", micro, layer);
  const bool moe = is_moe_layer(m_, layer);
  const double b = static_cast<double>(m_.micro_batch), sq = static_cast<double>(m_.seq), h = static_cast<double>(m_.hidden),
               f = static_cast<double>(m_.ffn_hidden), split = static_cast<double>(p_.tp) * p_.cp;
  const Bytes act = tp_activation_bytes(m_, p_), dt = m_.dtype_bytes;
  if (p_.zero >= 3 && !recompute)
    blocking(cs, stage, CommKind::Zero, Op::AllGather,
             static_cast<Bytes>(layer_params(m_, false) / p_.tp) * dt, dt, groups_over(stage, 'd'), at + " params");
  if (p_.cp > 1) blocking(cs, stage, CommKind::Cp, Op::AllGather, cp_kv_bytes(m_, p_) * static_cast<Bytes>(p_.cp), dt, groups_over(stage, 'c'), at + " K,V");
  if (p_.sequence_parallel) tp_collective(cs, stage, Op::AllGather, act, at + " attn in");
  compute(cs, stage, seconds((8 * b * sq * h * h + 4 * b * sq * sq * h) / split), at + " attn");
  tp_collective(cs, stage, p_.sequence_parallel ? Op::ReduceScatter : Op::AllReduce, act, at + " attn out");
  if (p_.sequence_parallel) tp_collective(cs, stage, Op::AllGather, act, at + " mlp in");
  const Bytes a2a = ep_alltoall_bytes(m_, p_) ;
  if (moe && p_.ep > 1) blocking(cs, stage, CommKind::Ep, Op::AllToAll, a2a, dt, groups_over(stage, 'e'), at + " dispatch");
  compute(cs, stage, seconds((4 * b * sq * h * f * (moe ? static_cast<double>(m_.top_k) : 1) + (moe ? 2 * b * sq * h * static_cast<double>(m_.experts) : 0)) / split),
          at + (moe ? " experts" : " mlp"));
  if (moe && p_.ep > 1) blocking(cs, stage, CommKind::Ep, Op::AllToAll, a2a, dt, groups_over(stage, 'e'), at + " combine");
  tp_collective(cs, stage, p_.sequence_parallel ? Op::ReduceScatter : Op::AllReduce, act, at + " mlp out");
}

void StepBuilder::layer_backward(std::vector<Chain*>& cs, int stage, std::uint64_t layer, int micro) {
  const std::string at = fmt::format("B{} L{}", micro, layer);
  const bool moe = is_moe_layer(m_, layer);
  const Bytes act = tp_activation_bytes(m_, p_), dt = m_.dtype_bytes;
  if (p_.zero >= 3)
    blocking(cs, stage, CommKind::Zero, Op::AllGather,
             static_cast<Bytes>(layer_params(m_, false) / p_.tp) * dt, dt, groups_over(stage, 'd'), at + " params");
  if (p_.recompute == Recompute::Full) layer_forward(cs, stage, layer, micro, true);
  const double b = static_cast<double>(m_.micro_batch), sq = static_cast<double>(m_.seq), h = static_cast<double>(m_.hidden),
               f = static_cast<double>(m_.ffn_hidden), split = static_cast<double>(p_.tp) * p_.cp;
  // Backward costs twice the forward (gradients with respect to inputs and to weights).
  if (p_.sequence_parallel) tp_collective(cs, stage, Op::AllGather, act, at + " mlp grad in");
  const Bytes a2a = ep_alltoall_bytes(m_, p_);
  if (moe && p_.ep > 1) blocking(cs, stage, CommKind::Ep, Op::AllToAll, a2a, dt, groups_over(stage, 'e'), at + " combine");
  compute(cs, stage, seconds(2 * (4 * b * sq * h * f * (moe ? static_cast<double>(m_.top_k) : 1) + (moe ? 2 * b * sq * h * static_cast<double>(m_.experts) : 0)) / split),
          at + (moe ? " experts" : " mlp"));
  if (moe && p_.ep > 1) blocking(cs, stage, CommKind::Ep, Op::AllToAll, a2a, dt, groups_over(stage, 'e'), at + " dispatch");
  tp_collective(cs, stage, p_.sequence_parallel ? Op::ReduceScatter : Op::AllReduce, act, at + " mlp in grad");
  if (p_.sequence_parallel) tp_collective(cs, stage, Op::AllGather, act, at + " attn grad in");
  compute(cs, stage, seconds(2 * (8 * b * sq * h * h + 4 * b * sq * sq * h) / split), at + " attn");
  if (p_.cp > 1) blocking(cs, stage, CommKind::Cp, Op::ReduceScatter, cp_kv_bytes(m_, p_) * static_cast<Bytes>(p_.cp), dt, groups_over(stage, 'c'), at + " dK,dV");
  tp_collective(cs, stage, p_.sequence_parallel ? Op::ReduceScatter : Op::AllReduce, act, at + " attn in grad");
}

// Data-parallel gradient exchange of `stage`: buckets fill with each layer's gradients as the last
// micro-batch's backward produces them (overlap) and go out one after another on each group's stream.
void StepBuilder::gradient_buckets(int stage, std::uint64_t layer, bool flush) {
  const auto st = static_cast<std::size_t>(stage);
  if (!flush) {
    const bool moe = is_moe_layer(m_, layer);
    const double mlp = moe ? expert_params(m_) : 0;
    fill_dense_[st] += (layer_params(m_, moe) - mlp) / p_.tp;
    fill_expert_[st] += mlp / p_.tp / p_.ep;
    if (!s_.overlap) return;
  }
  const double cap = std::max<double>(1, static_cast<double>(s_.bucket_bytes / h_.grad_bytes));
  auto& cs = stages_[st];
  std::vector<Mark> ready;
  for (auto& c : cs) ready.push_back(c.at);
  auto emit = [&](double elems, char dim) {
    const auto groups = groups_over(stage, dim);
    const Bytes size = static_cast<Bytes>(std::llround(elems)) * h_.grad_bytes;
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
      if (groups[gi].size() < 2) continue;
      std::vector<int> gpus;
      for (const auto& [c, t] : groups[gi]) gpus.push_back(c->gpus[static_cast<std::size_t>(t)]);
      std::vector<Mark> deps = ready;
      const auto key = std::make_pair(stage, static_cast<int>(gi) + (dim == 'x' ? 100000 : 0));
      if (auto it = dp_last_.find(key); it != dp_last_.end()) deps.push_back({it->second, 0});
      std::uint32_t first = kNoJob;
      const std::uint32_t j = collective(CommKind::Dp, p_.zero == 0 ? Op::AllReduce : Op::ReduceScatter, gpus, size, h_.grad_bytes, deps, &first);
      ++res_.collectives[CommKind::Dp];
      dp_last_[key] = j;
      if (gi == 0) recs_.push_back({RecKind::Async, stage, "dp", fmt::format("{} grads {}", p_.zero == 0 ? "allreduce" : "reduce-scatter", format_size(size)),
                                    {}, 0, first, j, nullptr, CommKind::Dp});
    }
    if (dim == 'd') buckets_[st].push_back(static_cast<std::uint64_t>(std::llround(elems)));
  };
  for (double* fill : {&fill_dense_[st], &fill_expert_[st]}) {
    const char dim = fill == &fill_dense_[st] ? 'd' : 'x';
    while (*fill >= cap) {
      emit(cap, dim);
      *fill -= cap;
    }
    if (flush && *fill >= 1) {
      emit(*fill, dim);
      *fill = 0;
    }
  }
}

bool StepBuilder::run_op(int stage, const PipeOp& op) {
  const int pv = p_.pp * p_.virtual_stages;
  const int g = op.chunk * p_.pp + stage;
  const std::uint64_t per = m_.layers / static_cast<std::uint64_t>(pv);
  auto& chains = stages_[static_cast<std::size_t>(stage)];
  std::vector<Chain*> cs;
  for (auto& c : chains) cs.push_back(&c);
  const bool recv = op.forward ? g > 0 : g < pv - 1;
  if (recv) {
    for (std::size_t i = 0; i < cs.size(); ++i)
      if (!sends_.count({op.forward, op.micro, g, static_cast<int>(i)})) return false; // the previous stage is not there yet
    for (std::size_t i = 0; i < cs.size(); ++i) {
      Chain* c = cs[i];
      const std::uint32_t s = sends_.at({op.forward, op.micro, g, static_cast<int>(i)});
      const std::uint32_t j = join({dep(c->at), {s, 0}}, 0, c->gpus.front());
      if (c->recorded) recs_.push_back({RecKind::Wait, stage, "pp wait", fmt::format("{}{} wait", op.forward ? "F" : "B", op.micro), c->at, 0, s, j, c, CommKind::Pp});
      c->at = {j, 0};
    }
  }
  const double split = static_cast<double>(p_.tp) * p_.cp;
  if (op.forward) {
    for (std::uint64_t l = static_cast<std::uint64_t>(g) * per; l < static_cast<std::uint64_t>(g + 1) * per; ++l) layer_forward(cs, stage, l, op.micro, false);
    if (g == pv - 1 && m_.vocab) compute(cs, stage, seconds(logits_forward_flops(m_) / split), fmt::format("F{} logits", op.micro));
  } else {
    if (g == pv - 1 && m_.vocab) compute(cs, stage, seconds(2 * logits_forward_flops(m_) / split), fmt::format("B{} logits", op.micro));
    const int last = p_.schedule == PipeSchedule::GPipe ? 0 : static_cast<int>(p_.micro_batches) - 1;
    for (std::uint64_t l = static_cast<std::uint64_t>(g + 1) * per; l-- > static_cast<std::uint64_t>(g) * per;) {
      layer_backward(cs, stage, l, op.micro);
      if (op.micro == last) gradient_buckets(stage, l, false);
    }
  }
  const bool send = op.forward ? g < pv - 1 : g > 0;
  if (!send) return true;
  const int to_g = op.forward ? g + 1 : g - 1, to_stage = to_g % p_.pp;
  const Bytes bytes = pp_send_bytes(m_, p_);
  for (std::size_t i = 0; i < cs.size(); ++i) {
    Chain* c = cs[i];
    const Chain& dst = stages_[static_cast<std::size_t>(to_stage)][i];
    std::vector<std::pair<std::uint32_t, Time>> parts;
    std::uint32_t first = kNoJob;
    for (int t = 0; t < p_.tp; ++t) {
      schedule::CollArgs a;
      a.ranks = 2;
      a.count = std::max<Bytes>(1, bytes / m_.dtype_bytes);
      a.elt_size = m_.dtype_bytes;
      own_.push_back(std::make_unique<P2pSchedule>(a));
      engine::Job j;
      j.schedule = own_.back().get();
      j.node_of_rank = {topo_.gpu_node(c->gpus[static_cast<std::size_t>(t)]), topo_.gpu_node(dst.gpus[static_cast<std::size_t>(t)])};
      j.elt_size = m_.dtype_bytes;
      if (c->at.job == kNoJob) j.start = c->at.offset;
      else j.after = {dep(c->at)};
      parts.emplace_back(add_job(std::move(j)), 0);
      if (t == 0) first = parts.back().first;
    }
    const std::uint32_t done = join(parts, 0, c->gpus.front());
    ++res_.collectives[CommKind::Pp];
    if (std::find(c->gpus.begin(), c->gpus.end(), gpus_.front()) != c->gpus.end()) res_.bytes_per_gpu[CommKind::Pp] += bytes;
    sends_[{op.forward, op.micro, to_g, static_cast<int>(i)}] = done;
    if (c->recorded) recs_.push_back({RecKind::Async, stage, "pp send", fmt::format("{}{} send {}", op.forward ? "F" : "B", op.micro, format_size(bytes)), {}, 0, first, done, c, CommKind::Pp});
  }
  return true;
}

void StepBuilder::finish_stage(int stage) {
  const auto st = static_cast<std::size_t>(stage);
  // The word embedding's gradients (first stage; the last holds the tied output copy) come last.
  if (stage == 0 || stage == p_.pp - 1) fill_dense_[st] += static_cast<double>(m_.vocab * m_.hidden) / p_.tp;
  gradient_buckets(stage, 0, true);
  if (p_.zero == 1 || p_.zero == 2) { // the updated parameter shards gathered back, bucket by bucket
    const auto groups = groups_over(stage, 'd');
    for (std::uint64_t elems : buckets_[st])
      for (std::size_t gi = 0; gi < groups.size(); ++gi) {
        if (groups[gi].size() < 2) continue;
        std::vector<int> gpus;
        for (const auto& [c, t] : groups[gi]) gpus.push_back(c->gpus[static_cast<std::size_t>(t)]);
        auto& last = dp_last_[{stage, static_cast<int>(gi)}];
        std::uint32_t first = kNoJob;
        last = collective(CommKind::Dp, Op::AllGather, gpus, elems * m_.dtype_bytes, m_.dtype_bytes, {{last, 0}}, &first);
        ++res_.collectives[CommKind::Dp];
        if (gi == 0) recs_.push_back({RecKind::Async, stage, "dp", fmt::format("allgather params {}", format_size(elems * m_.dtype_bytes)), {}, 0, first, last, nullptr, CommKind::Dp});
      }
  }
}

HybridResult StepBuilder::run() {
  res_.model_name = s_.model_name;
  res_.gpu_kind = h_.gpu.empty() ? topo_.gpu_kind : h_.gpu;
  peak_ = h_.peak_flops;
  if (peak_ == 0) {
    if (res_.gpu_kind.empty())
      fail("scenario {}: compute: {} does not name its GPU kind; give compute.gpu or compute.peak_flops", s_.origin, topo_.name);
    const auto& g = topology::gpu_table()["gpus"];
    if (!g.contains(res_.gpu_kind)) fail("scenario {}: compute.gpu: unknown '{}'", s_.origin, res_.gpu_kind);
    const auto& k = g[res_.gpu_kind];
    if (!k.contains("peak_tensor_flops") || !k["peak_tensor_flops"].is_number())
      fail("scenario {}: compute: models/gpus.json gives no peak_tensor_flops for '{}'; give compute.peak_flops", s_.origin, res_.gpu_kind);
    peak_ = k["peak_tensor_flops"].get<double>();
  }
  res_.peak_flops = peak_;
  if (!res_.gpu_kind.empty() && topology::gpu_table()["gpus"].contains(res_.gpu_kind))
    res_.memory_capacity = static_cast<double>(topology::gpu_kind(res_.gpu_kind, "scenario " + s_.origin).memory_gb) * (1ULL << 30);
  // The tensor-parallel collectives alone, counted before anything is built (a model may add channels).
  const double per_layer = p_.tp < 2 ? 0 : (p_.sequence_parallel ? 8 : 4) * (p_.recompute == Recompute::Full ? 1.5 : 1.0);
  const double tp_ranks = static_cast<double>(p_.micro_batches) * static_cast<double>(m_.layers) * per_layer * p_.tp * p_.cp * p_.dp;
  if (tp_ranks > static_cast<double>(kMaxRanks)) too_big();
  make_chains();
  fill_dense_.assign(static_cast<std::size_t>(p_.pp), 0);
  fill_expert_.assign(static_cast<std::size_t>(p_.pp), 0);
  buckets_.assign(static_cast<std::size_t>(p_.pp), {});
  std::vector<std::vector<PipeOp>> ops;
  std::vector<std::size_t> pc(static_cast<std::size_t>(p_.pp), 0);
  for (int k = 0; k < p_.pp; ++k) ops.push_back(stage_ops(p_, k));
  for (bool progress = true; progress;) {
    progress = false;
    for (int k = 0; k < p_.pp; ++k)
      for (auto& i = pc[static_cast<std::size_t>(k)]; i < ops[static_cast<std::size_t>(k)].size() && run_op(k, ops[static_cast<std::size_t>(k)][i]); ++i)
        progress = true;
  }
  for (int k = 0; k < p_.pp; ++k)
    if (pc[static_cast<std::size_t>(k)] < ops[static_cast<std::size_t>(k)].size())
      fail("scenario {}: the pipeline schedule deadlocks at stage {} (an internal error)", s_.origin, k);
  std::vector<std::pair<Chain*, std::uint32_t>> ends;
  for (int k = 0; k < p_.pp; ++k) {
    finish_stage(k);
    for (auto& c : stages_[static_cast<std::size_t>(k)]) ends.emplace_back(&c, join({dep(c.at)}, 0, c.gpus.front()));
  }
  engine::Engine eng(topo_, router_, params_, *network_);
  const auto r = eng.run(jobs_);
  const auto& fin = r.job_finish;
  auto time_of = [&](const Mark& m) { return (m.job == kNoJob ? 0 : fin[m.job]) + m.offset; };
  auto start_of = [&](std::uint32_t j) {
    Time t = jobs_[j].start;
    for (const auto& [d, delay] : jobs_[j].after) t = std::max(t, fin[d] + delay);
    return t;
  };
  res_.step = r.makespan;
  res_.jobs = jobs_.size();
  res_.transfers = r.transfers;
  Chain& first = stages_[0][0];
  for (const auto& rec : recs_) {
    TimelineSlice sl{rec.stage, rec.track, rec.label, 0, 0};
    switch (rec.kind) {
      case RecKind::Compute: sl.begin = time_of(rec.ready), sl.end = sl.begin + rec.dur; break;
      case RecKind::Blocking:
        sl.begin = start_of(rec.first), sl.end = fin[rec.join];
        rec.chain->exposed[rec.comm] += fin[rec.join] - time_of(rec.ready);
        break;
      case RecKind::Wait:
        sl.begin = time_of(rec.ready), sl.end = std::max(sl.begin, fin[rec.join]);
        rec.chain->bubble += sl.end - sl.begin;
        break;
      case RecKind::Async: sl.begin = start_of(rec.first), sl.end = fin[rec.join]; break;
    }
    if (rec.kind != RecKind::Wait || sl.end > sl.begin) res_.timeline.push_back(std::move(sl));
  }
  res_.compute = first.compute;
  res_.ideal = first.compute;
  res_.exposed = first.exposed;
  res_.bubble = first.bubble;
  for (const auto& [c, j] : ends)
    if (c == &first) res_.tail = res_.step - fin[j];
  // Bytes one GPU of the first stage sends per step (the ring's share: 2(n-1)/n of an allreduce).
  res_.memory = memory_per_gpu(h_);
  const double step_s = to_sec(res_.step);
  const double batch = static_cast<double>(p_.dp) * static_cast<double>(m_.micro_batch) * static_cast<double>(p_.micro_batches);
  res_.model_flops_per_gpu = step_s > 0 ? narayanan_step_flops(m_, batch) / (step_s * p_.world()) : 0;
  return res_;
}

} // namespace

HybridResult run_hybrid_step(const Scenario& s, const topology::Topology& topo, bool allow_oversubscribed) {
  const HybridSpec& h = *s.hybrid;
  // Memory first: a configuration that cannot run is refused before it is simulated.
  StepBuilder b(s, topo);
  const Memory mem = memory_per_gpu(h);
  const std::string kind = h.gpu.empty() ? topo.gpu_kind : h.gpu;
  if (!kind.empty() && topology::gpu_table()["gpus"].contains(kind) && !allow_oversubscribed && !h.allow_oversubscribed) {
    const double cap = static_cast<double>(topology::gpu_kind(kind, "scenario " + s.origin).memory_gb) * (1ULL << 30);
    if (mem.total() > cap)
      fail("scenario {}: needs {:.1f} GiB per GPU (weights {:.1f}, gradients {:.1f}, optimizer {:.1f}, activations {:.1f}) but a {} "
           "has {:.0f} GiB; shard more (parallel.zero, tp, pp), recompute, or pass --allow-oversubscribed-memory",
           s.origin, mem.total() / (1ULL << 30), mem.weights / (1ULL << 30), mem.grads / (1ULL << 30), mem.optimizer / (1ULL << 30),
           mem.activations / (1ULL << 30), kind, cap / (1ULL << 30));
  }
  return b.run();
}

} // namespace ccsim::scenario
