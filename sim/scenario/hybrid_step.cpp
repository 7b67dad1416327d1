#include "sim/scenario/hybrid_step.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/model/registry.hpp"
#include "sim/scenario/hybrid_builder.hpp"
#include "sim/topology/gpu_catalogue.hpp"

namespace ccsim::scenario {

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

namespace detail {

namespace {

metrics::DataType dtype_of(Bytes size) {
  switch (size) {
    case 1: return {"int8", 1};
    case 2: return {"bfloat16", 2};
    case 8: return {"double", 8};
    default: return {"float", 4};
  }
}

} // namespace

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
  if (world > static_cast<int>(order.size())) {
    // Say what would fit: the file's degrees on another machine (scenario --topo) most often meet a smaller box.
    const int others = p_.tp * p_.cp * p_.pp, room = static_cast<int>(order.size()) / others;
    int dp_fits = room;
    while (dp_fits > 0 && (dp_fits % p_.ep != 0)) --dp_fits;
    const std::string what_fits =
        dp_fits > 0 ? fmt::format("set parallel.dp to {} or less in the file", dp_fits)
                    : fmt::format("tp x cp x pp = {} alone needs more GPUs: lower them in the file", others);
    fail("scenario {}: parallel: tp x cp x pp x dp = {} GPUs ({} x {} x {} x {}), but {} has {}: {}, or run on a larger --topo",
         s_.origin, world, p_.tp, p_.cp, p_.pp, p_.dp, topo_.name, order.size(), what_fits);
  }
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
  e.choice = kept->choice;
  e.choice.weighed.clear();
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
  auto& shape = res_.shapes[{kind, std::string(schedule::to_string(op)), static_cast<int>(gpus.size()), size}];
  ++shape.count;
  std::vector<std::pair<std::uint32_t, Time>> after;
  for (const auto& m : ready) after.push_back(dep(m));
  if (gpus.size() < 2 || size == 0) {
    const std::uint32_t j = join(after, 0, gpus.front());
    if (first) *first = j;
    return j;
  }
  const PlanEntry& e = plan(op, gpus, size, elt);
  if (shape.count == 1) {
    shape.algo = e.choice.algo;
    shape.proto = e.choice.proto;
    shape.channels = e.choice.channels;
    shape.simulated = !e.closed;
  } else if (shape.algo != e.choice.algo || shape.proto != e.choice.proto || shape.channels != e.choice.channels) {
    shape.algo = "varies";
    shape.proto.clear();
    shape.channels = 0;
  }
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

// The GPU's peak (file, or the GPU kind's peak_tensor_flops) and memory.
void StepBuilder::setup_compute() {
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
}

// Every stage's ops in turn, each as far as it can go: a stage stops at a receive whose send the
// neighbouring stage has not reached yet (the schedules are deadlock-free, so this terminates).
void StepBuilder::build_program() {
  // Times are 64-bit picoseconds: a step of more than 1e6 s of compute (11.6 days) is a typo.
  const double work = 4 * (layer_forward_flops(m_, m_.experts > 1) * static_cast<double>(m_.layers) + logits_forward_flops(m_)) *
                      static_cast<double>(p_.micro_batches) / (p_.tp * p_.cp * p_.pp);
  if (!(work / (peak_ * h_.efficiency) <= 1e6))
    fail("scenario {}: compute: {:.3g} s of compute per GPU per step is more than 1e6 s (check the shapes and micro-batches)", s_.origin,
         work / (peak_ * h_.efficiency));
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
}

// Timeline slices and the first chain's breakdown from the jobs' finish times.
void StepBuilder::collect(const engine::RunResult& r, const std::vector<std::pair<Chain*, std::uint32_t>>& ends) {
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
  res_.memory = memory_per_gpu(h_);
  const double step_s = to_sec(res_.step);
  const double batch = static_cast<double>(p_.dp) * static_cast<double>(m_.micro_batch) * static_cast<double>(p_.micro_batches);
  res_.model_flops_per_gpu = step_s > 0 ? narayanan_step_flops(m_, batch) / (step_s * p_.world()) : 0;
}

HybridResult StepBuilder::run() {
  setup_compute();
  build_program();
  std::vector<std::pair<Chain*, std::uint32_t>> ends;
  for (int k = 0; k < p_.pp; ++k) {
    finish_stage(k);
    for (auto& c : stages_[static_cast<std::size_t>(k)]) ends.emplace_back(&c, join({dep(c.at)}, 0, c.gpus.front()));
  }
  engine::Engine eng(topo_, router_, params_, *network_);
  collect(eng.run(jobs_), ends);
  return res_;
}

} // namespace detail

HybridResult run_hybrid_step(const Scenario& s, const topology::Topology& topo, bool allow_oversubscribed) {
  const HybridSpec& h = *s.hybrid;
  // Memory first: a configuration that cannot run is refused before it is simulated.
  detail::StepBuilder b(s, topo);
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