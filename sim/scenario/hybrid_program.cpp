// The program of every tensor-parallel group: per layer its compute and the collectives each kind of
// parallelism inserts (docs/training.md gives the sizes and their sources), the pipeline's sends and
// receives, and the data-parallel gradient buckets.
#include <algorithm>
#include <cmath>

#include "sim/core/error.hpp"
#include "sim/scenario/hybrid_builder.hpp"

namespace ccsim::scenario::detail {

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
    for (const auto& member : g) {
      const Chain* c = member.first; // not a structured binding: clang 14 cannot capture one in a lambda
      gpus.push_back(c->gpus[static_cast<std::size_t>(member.second)]);
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
  const double split = static_cast<double>(p_.tp) * p_.cp;
  const Bytes act = tp_activation_bytes(m_, p_), dt = m_.dtype_bytes;
  if (p_.zero >= 3 && !recompute)
    blocking(cs, stage, CommKind::Zero, Op::AllGather,
             static_cast<Bytes>(layer_params(m_, false) / p_.tp) * dt, dt, groups_over(stage, 'd'), at + " params");
  if (p_.cp > 1) blocking(cs, stage, CommKind::Cp, Op::AllGather, cp_kv_bytes(m_, p_) * static_cast<Bytes>(p_.cp), dt, groups_over(stage, 'c'), at + " K,V");
  if (p_.sequence_parallel) tp_collective(cs, stage, Op::AllGather, act, at + " attn in");
  compute(cs, stage, seconds(attention_forward_flops(m_) / split), at + " attn");
  tp_collective(cs, stage, p_.sequence_parallel ? Op::ReduceScatter : Op::AllReduce, act, at + " attn out");
  if (p_.sequence_parallel) tp_collective(cs, stage, Op::AllGather, act, at + " mlp in");
  const Bytes a2a = ep_alltoall_bytes(m_, p_) ;
  if (moe && p_.ep > 1) blocking(cs, stage, CommKind::Ep, Op::AllToAll, a2a, dt, groups_over(stage, 'e'), at + " dispatch");
  compute(cs, stage, seconds(mlp_forward_flops(m_, moe) / split),
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
  const double split = static_cast<double>(p_.tp) * p_.cp;
  // Backward costs twice the forward (gradients with respect to inputs and to weights).
  if (p_.sequence_parallel) tp_collective(cs, stage, Op::AllGather, act, at + " mlp grad in");
  const Bytes a2a = ep_alltoall_bytes(m_, p_);
  if (moe && p_.ep > 1) blocking(cs, stage, CommKind::Ep, Op::AllToAll, a2a, dt, groups_over(stage, 'e'), at + " combine");
  compute(cs, stage, seconds(2 * mlp_forward_flops(m_, moe) / split),
          at + (moe ? " experts" : " mlp"));
  if (moe && p_.ep > 1) blocking(cs, stage, CommKind::Ep, Op::AllToAll, a2a, dt, groups_over(stage, 'e'), at + " dispatch");
  tp_collective(cs, stage, p_.sequence_parallel ? Op::ReduceScatter : Op::AllReduce, act, at + " mlp in grad");
  if (p_.sequence_parallel) tp_collective(cs, stage, Op::AllGather, act, at + " attn grad in");
  compute(cs, stage, seconds(2 * attention_forward_flops(m_) / split), at + " attn");
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
    ++res_.shapes[{CommKind::Pp, "send", 2, bytes}].count; // one per tensor rank: tp pairs at once
    if (std::find(c->gpus.begin(), c->gpus.end(), gpus_.front()) != c->gpus.end()) res_.bytes_per_gpu[CommKind::Pp] += bytes;
    sends_[{op.forward, op.micro, to_g, static_cast<int>(i)}] = done;
    if (c->recorded) recs_.push_back({RecKind::Async, stage, "pp send", fmt::format("{}{} send {}", op.forward ? "F" : "B", op.micro, format_size(bytes)), {}, 0, first, done, c, CommKind::Pp});
  }
  return true;
}

void StepBuilder::finish_stage(int stage) {
  const auto st = static_cast<std::size_t>(stage);
  // The word embedding's gradients (first stage; the last holds the tied output copy, or the untied output
  // layer) come last; one stage holds both matrices when untied and pp = 1.
  const double words = static_cast<double>(m_.vocab * m_.hidden) / p_.tp;
  if (stage == 0 || stage == p_.pp - 1) fill_dense_[st] += words;
  if (stage == 0 && p_.pp == 1 && !m_.tied_embeddings) fill_dense_[st] += words;
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

} // namespace ccsim::scenario::detail
