#include "sim/scenario/step.hpp"

#include "sim/model/registry.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/core/ceil_div.hpp"
#include "sim/core/error.hpp"
#include "sim/engine/engine.hpp"
#include "sim/scenario/ps_schedule.hpp"
#include "sim/topology/ring_search.hpp"

namespace ccsim::scenario {
using schedule::Op;

std::string_view to_string(ExchangeKind k) {
  switch (k) {
    case ExchangeKind::AllReduce: return "allreduce";
    case ExchangeKind::ReduceScatter: return "reducescatter";
    case ExchangeKind::AllGather: return "allgather";
    case ExchangeKind::PushPull: return "push+pull";
  }
  return "?";
}

std::vector<Bucket> make_buckets(const Scenario& s, Bytes elt_size) {
  const std::uint64_t cap = std::max<std::uint64_t>(1, s.bucket_bytes / elt_size);
  std::vector<Bucket> out;
  std::uint64_t fill = 0;
  Time t = s.forward_time();
  for (auto it = s.layers.rbegin(); it != s.layers.rend(); ++it) {
    t += it->bwd; // this layer's gradients exist once its backward is done
    std::uint64_t left = it->params;
    while (left > 0) {
      if (out.empty() || fill == cap) {
        out.push_back({0, t});
        fill = 0;
      }
      const std::uint64_t take = std::min(left, cap - fill);
      out.back().elems += take;
      out.back().ready = t;
      fill += take;
      left -= take;
    }
  }
  return out;
}

StepSimulator::StepSimulator(const Scenario& s, const topology::Topology& topo, Strategy strategy,
                             metrics::DataType dtype, int gpus)
    : s_(s), topo_(topo), router_(topo), strategy_(strategy), dtype_(std::move(dtype)),
      model_(model::make_model(s.model_name, topo, s.model_options)) {
  std::vector<int> order = s.gpus;
  if (order.empty()) {
    order.resize(static_cast<std::size_t>(topo.num_gpus()));
    std::iota(order.begin(), order.end(), 0);
  }
  for (int g : order)
    if (g >= topo.num_gpus())
      fail("scenario {}: gpus: GPU {} does not exist on {} (GPUs 0..{})", s.origin, g, topo.name, topo.num_gpus() - 1);
  if (gpus > static_cast<int>(order.size()))
    fail("scenario {}: degree {} needs {} GPUs but {} has {} to use", s.origin, gpus, gpus, topo.name, order.size());
  gpus_.assign(order.begin(), order.begin() + gpus);
  if (strategy == Strategy::PsCpu) {
    if (!s.server_node.empty()) {
      const auto n = topo.find_node(s.server_node);
      if (!n) fail("scenario {}: server_node: no node '{}' on {}", s.origin, s.server_node, topo.name);
      server_node_ = *n;
    } else {
      for (int i = 0; i < static_cast<int>(topo.nodes.size()) && server_node_ < 0; ++i)
        if (topo.nodes[static_cast<std::size_t>(i)].kind == topology::NodeKind::Cpu) server_node_ = i;
      if (server_node_ < 0) fail("scenario {}: strategy ps_cpu needs a CPU node, and {} has none", s.origin, topo.name);
    }
  }
  buckets_ = make_buckets(s, dtype_.size);
}

Time StepSimulator::run_collective(const schedule::AlgorithmInfo& a, std::uint64_t count) {
  if (a.ring_like && rings_.empty()) rings_ = topology::pack_rings(topo_, gpus_).rings;
  metrics::RunConfig cfg;
  cfg.op = a.op;
  cfg.algo = a.name;
  cfg.placements = a.ring_like ? rings_ : std::vector<std::vector<int>>{gpus_};
  cfg.dtype = dtype_;
  cfg.model_name = s_.model_name;
  cfg.model = s_.model;
  const Bytes bytes = count * dtype_.size;
  // nccl-tests' size of this exchange (allgather/reducescatter count the whole buffer).
  const Bytes size = a.op == Op::AllReduce ? bytes : bytes * static_cast<Bytes>(gpus());
  return metrics::run(*model_, cfg, metrics::SizePlan{count, size}).time;
}

Time StepSimulator::run_push_pull(std::uint64_t count) {
  schedule::CollArgs args;
  args.op = Op::AllReduce; // the net effect of push + pull
  args.count = count;
  args.elt_size = dtype_.size;
  engine::Job job;
  for (int g : gpus_) job.node_of_rank.push_back(topo_.gpu_node(g));
  std::unique_ptr<schedule::Schedule> sched;
  if (strategy_ == Strategy::PsSharded) {
    args.ranks = gpus();
    sched = make_ps_sharded(args);
  } else if (strategy_ == Strategy::PsCpu) {
    args.ranks = gpus() + 1; // the workers, then the server on the CPU
    args.root = gpus();
    job.node_of_rank.push_back(server_node_);
    sched = make_ps_central(args);
  } else {
    args.ranks = gpus();
    args.root = 0; // GPU0 (the first GPU of the group) serves
    sched = make_ps_central(args);
  }
  job.schedule = sched.get();
  job.elt_size = dtype_.size;
  // The parameter server's schedules are not NCCL's: they run on the plain fifo network.
  const auto* net = engine::find_network(s_.model_name);
  engine::Engine eng(topo_, router_, s_.model, net ? *net : engine::fifo_network());
  try {
    return eng.run(std::span<const engine::Job>(&job, 1)).makespan;
  } catch (const Error& e) { // e.g. no route from a GPU of another node to the server's CPU
    fail("scenario {}: strategy {} on {}: {}", s_.origin, to_string(strategy_), topo_.name, e.what());
  }
}

std::pair<Time, std::string> StepSimulator::exchange(ExchangeKind kind, std::uint64_t elems) {
  const auto key = std::make_pair(static_cast<int>(kind), elems);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  std::pair<Time, std::string> res;
  if (kind == ExchangeKind::PushPull) {
    res = {run_push_pull(elems), std::string(to_string(strategy_))};
  } else {
    const Op op = kind == ExchangeKind::AllReduce ? Op::AllReduce : kind == ExchangeKind::ReduceScatter ? Op::ReduceScatter : Op::AllGather;
    if (s_.algorithm == "auto") {
      // Simulate every registered algorithm for the op at this size and keep the fastest; one that
      // cannot run here (e.g. needs a power-of-two rank count) is skipped.
      res.first = kNever;
      for (const auto& a : schedule::all_algorithms()) {
        if (a.op != op) continue;
        try {
          const Time t = run_collective(a, elems);
          if (t < res.first) res = {t, a.name};
        } catch (const Error&) {
        }
      }
      if (res.first == kNever) fail("scenario {}: algorithm auto: no {} algorithm runs on {} GPUs", s_.origin, to_string(op), gpus());
    } else {
      const auto* a = schedule::find_algorithm(op, s_.algorithm);
      if (!a) {
        std::string have;
        for (const auto& x : schedule::all_algorithms())
          if (x.op == op) have += (have.empty() ? "" : ", ") + x.name;
        fail("scenario {}: algorithm: no '{}' for {} (available: {}, or auto)", s_.origin, s_.algorithm, to_string(op), have);
      }
      res = {run_collective(*a, elems), a->name};
    }
  }
  cache_[key] = res;
  return res;
}

StepResult StepSimulator::run(double scale) {
  StepResult r;
  auto scaled = [scale](Time t) { return static_cast<Time>(std::llround(static_cast<double>(t) * scale)); };
  r.compute = scaled(s_.forward_time() + s_.backward_time());
  if (gpus() == 1) { // one replica: nothing to exchange
    r.step = r.compute;
    return r;
  }
  const auto p = static_cast<std::uint64_t>(gpus());
  auto ready_of = [&](const Bucket& b) { return s_.overlap ? scaled(b.ready) : r.compute; };
  for (const auto& b : buckets_) {
    switch (strategy_) {
      case Strategy::AllReduce: r.items.push_back({ExchangeKind::AllReduce, b.elems, ready_of(b), 0, 0, {}}); break;
      case Strategy::Zero: r.items.push_back({ExchangeKind::ReduceScatter, ceil_div(b.elems, p), ready_of(b), 0, 0, {}}); break;
      default: r.items.push_back({ExchangeKind::PushPull, b.elems, ready_of(b), 0, 0, {}}); break;
    }
  }
  // ZeRO: after the optimizer updates each shard, allgather the parameters, first layers first.
  if (strategy_ == Strategy::Zero)
    for (auto it = buckets_.rbegin(); it != buckets_.rend(); ++it)
      r.items.push_back({ExchangeKind::AllGather, ceil_div(it->elems, p), r.compute, 0, 0, {}});
  Time stream = 0;
  for (auto& item : r.items) {
    const auto [d, algo] = exchange(item.kind, item.elems);
    item.start = std::max(item.ready, stream);
    item.end = item.start + d;
    item.algo = algo;
    stream = item.end;
    r.comm_busy += d;
  }
  r.step = std::max(r.compute, stream);
  return r;
}

double state_bytes_per_gpu(const Scenario& s, Strategy st, Bytes elt, int gpus) {
  const auto P = static_cast<double>(s.total_params()), e = static_cast<double>(elt), K = s.optimizer_bytes_per_param;
  const double p = gpus;
  switch (st) {
    case Strategy::Zero: return P * e + (P * e + P * K) / p;
    case Strategy::PsCpu: return 2 * P * e;
    case Strategy::PsSharded: return 2 * P * e + P * K / p;
    case Strategy::PsGpu0:
    case Strategy::AllReduce: return P * (2 * e + K);
  }
  return 0;
}

} // namespace ccsim::scenario
