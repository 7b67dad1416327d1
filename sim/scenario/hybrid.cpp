#include "sim/scenario/hybrid.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "sim/core/ascii.hpp"
#include "sim/scenario/reader.hpp"

namespace ccsim::scenario {

namespace {

int degree(const Reader& r, const json& p, const char* key) {
  if (!p.contains(key)) return 1;
  return static_cast<int>(r.count(p[key], fmt::format("parallel.{}", key), false, 65536));
}

std::uint64_t shape(const Reader& r, const json& t, const char* key, bool required, std::uint64_t dflt, std::uint64_t max) {
  if (!t.contains(key)) {
    if (required) r.bad("transformer: missing \"{}\"", key);
    return dflt;
  }
  return r.count(t[key], fmt::format("transformer.{}", key), false, max);
}

bool boolean(const Reader& r, const json& j, const std::string& key) {
  if (!j.is_boolean()) r.bad("{} must be true or false, got {}", key, describe(j));
  return j.get<bool>();
}

// A string from a fixed list (the first is the default when the key is absent).
std::string choice(const Reader& r, const json& t, const char* key, std::initializer_list<const char*> known, const char* dflt) {
  if (!t.contains(key)) return dflt;
  const std::string v = ascii_lower(r.string(t[key], fmt::format("transformer.{}", key))); // "SwiGLU" as papers write it
  std::string list;
  for (const char* k : known) {
    if (v == k) return v;
    list += (list.empty() ? "" : ", ") + std::string(k);
  }
  r.bad("transformer.{}: unknown '{}' ({})", key, printable(t[key].get<std::string>()), list);
}

// "tp-cp-ep-dp-pp": each of the five names at most once; names left out keep the default order after.
std::string read_order(const Reader& r, const std::string& text) {
  static const std::array<std::string, 5> kNames = {"tp", "cp", "ep", "dp", "pp"};
  std::vector<std::string> seen;
  std::stringstream ss(text);
  for (std::string tok; std::getline(ss, tok, '-');) {
    if (std::find(kNames.begin(), kNames.end(), tok) == kNames.end())
      r.bad("parallel.order: unknown dimension '{}' in '{}' (tp, cp, ep, dp, pp joined by '-')", printable(tok), printable(text));
    if (std::find(seen.begin(), seen.end(), tok) != seen.end()) r.bad("parallel.order: '{}' appears twice in '{}'", tok, printable(text));
    seen.push_back(tok);
  }
  for (const auto& n : kNames)
    if (std::find(seen.begin(), seen.end(), n) == seen.end()) seen.push_back(n);
  std::string out;
  for (const auto& n : seen) out += (out.empty() ? "" : "-") + n;
  return out;
}

void read_parallel(const Reader& r, const json& p, const Transformer& m, Parallel& par) {
  r.only_keys(p, "parallel", {"tp", "cp", "pp", "dp", "ep", "order", "micro_batches", "global_batch", "schedule",
                              "virtual_stages", "sequence_parallel", "zero", "recompute"});
  par.tp = degree(r, p, "tp");
  par.cp = degree(r, p, "cp");
  par.pp = degree(r, p, "pp");
  par.dp = degree(r, p, "dp");
  par.ep = degree(r, p, "ep");
  if (static_cast<std::uint64_t>(par.tp) * par.cp * par.pp * par.dp > 65536)
    r.bad("parallel: tp x cp x pp x dp = {} GPUs, more than 65536", static_cast<std::uint64_t>(par.tp) * par.cp * par.pp * par.dp);
  if (par.dp % par.ep != 0) r.bad("parallel.ep: {} does not divide dp = {} (expert parallelism splits the data-parallel ranks)", par.ep, par.dp);
  if (par.ep > 1 && m.experts < 2) r.bad("parallel.ep: {} needs an MoE model (transformer.experts > 1)", par.ep);
  if (par.ep > 1 && m.experts % static_cast<std::uint64_t>(par.ep) != 0)
    r.bad("parallel.ep: {} does not divide transformer.experts = {}", par.ep, m.experts);
  if (p.contains("order")) par.order = read_order(r, r.string(p["order"], "parallel.order"));
  if (p.contains("schedule")) {
    const std::string s = r.string(p["schedule"], "parallel.schedule");
    if (s == "gpipe") par.schedule = PipeSchedule::GPipe;
    else if (s == "1f1b") par.schedule = PipeSchedule::OneFOneB;
    else r.bad("parallel.schedule: unknown '{}' (gpipe, 1f1b)", printable(s));
  }
  if (p.contains("virtual_stages")) par.virtual_stages = static_cast<int>(r.count(p["virtual_stages"], "parallel.virtual_stages", false, 1024));
  if (p.contains("sequence_parallel")) par.sequence_parallel = boolean(r, p["sequence_parallel"], "parallel.sequence_parallel");
  if (p.contains("zero")) par.zero = static_cast<int>(r.count(p["zero"], "parallel.zero", true, 3));
  if (p.contains("recompute")) {
    const std::string s = r.string(p["recompute"], "parallel.recompute");
    if (s == "none") par.recompute = Recompute::None;
    else if (s == "full") par.recompute = Recompute::Full;
    else r.bad("parallel.recompute: unknown '{}' (none, full)", printable(s));
  }
  // Micro-batches: given, or from the global batch (B = dp x b x m, Megatron's --global-batch-size).
  const bool has_m = p.contains("micro_batches"), has_b = p.contains("global_batch");
  if (has_m) par.micro_batches = r.count(p["micro_batches"], "parallel.micro_batches", false, 100000);
  if (has_b) {
    const std::uint64_t B = r.count(p["global_batch"], "parallel.global_batch", false, 1ULL << 32);
    const std::uint64_t per = static_cast<std::uint64_t>(par.dp) * m.micro_batch;
    if (B % per != 0) r.bad("parallel.global_batch: {} is not a multiple of dp x micro_batch = {}", B, per);
    if (has_m && B / per != par.micro_batches)
      r.bad("parallel.global_batch: {} gives {} micro-batches, but micro_batches says {}", B, B / per, par.micro_batches);
    if (B / per > 100000) r.bad("parallel.global_batch: {} micro-batches per step is more than 100000", B / per);
    par.micro_batches = B / per;
  }
  // Every chain (tensor-parallel group) runs its layers forward and backward for every micro-batch; bound
  // the passes so that a typo cannot ask for hours (the 39.1B Megatron row needs 48 x 48 x 32 = 73728).
  const double passes = static_cast<double>(par.micro_batches) * static_cast<double>(m.layers) * par.cp * par.dp;
  if (passes > 2e7)
    r.bad("parallel.micro_batches: {} micro-batches x {} layers x {} context x data-parallel groups is {:.3g} layer passes, more than 2e7",
          par.micro_batches, m.layers, par.cp * par.dp, passes);
  if (m.layers % (static_cast<std::uint64_t>(par.pp) * par.virtual_stages) != 0)
    r.bad("parallel.pp: {} stages x {} virtual stages do not divide transformer.layers = {}", par.pp, par.virtual_stages, m.layers);
  if (par.virtual_stages > 1 && (par.schedule != PipeSchedule::OneFOneB || par.pp < 2))
    r.bad("parallel.virtual_stages: interleaving needs schedule 1f1b and pp > 1");
  if (par.virtual_stages > 1 && par.micro_batches % static_cast<std::uint64_t>(par.pp) != 0)
    r.bad("parallel.micro_batches: {} is not a multiple of pp = {} (the interleaved schedule needs it)", par.micro_batches, par.pp);
  if (m.heads % static_cast<std::uint64_t>(par.tp) != 0) r.bad("parallel.tp: {} does not divide transformer.heads = {}", par.tp, m.heads);
  // Megatron-Core splits the K,V heads (query groups) over the tensor-parallel ranks (attention.py:
  // num_query_groups_per_partition = divide(num_query_groups, tp)).
  if (m.kv_heads % static_cast<std::uint64_t>(par.tp) != 0)
    r.bad("parallel.tp: {} does not divide transformer.num_key_value_heads = {}", par.tp, m.kv_heads);
  if (m.seq % static_cast<std::uint64_t>(par.cp * (par.sequence_parallel ? par.tp : 1)) != 0)
    r.bad("parallel: the sequence ({}) does not split evenly over cp{}", m.seq, par.sequence_parallel ? " x tp (sequence parallel)" : "");
  if (par.sequence_parallel && par.tp < 2) r.bad("parallel.sequence_parallel: needs tp > 1");
}

} // namespace

HybridSpec hybrid_from_json(const Reader& r, const json& parallel, const json& t) {
  HybridSpec h;
  Transformer& m = h.model;
  r.only_keys(t, "transformer", {"layers", "hidden", "heads", "seq", "micro_batch", "vocab", "ffn_hidden", "experts", "top_k",
                                 "moe_every", "dtype_bytes", "intermediate_size", "num_key_value_heads", "mlp",
                                 "tie_word_embeddings", "position_embedding", "norm", "bias"});
  m.layers = shape(r, t, "layers", true, 0, 100000);
  m.hidden = shape(r, t, "hidden", true, 0, 1 << 20);
  m.heads = shape(r, t, "heads", true, 0, 1 << 16);
  m.seq = shape(r, t, "seq", true, 0, 1 << 24);
  m.micro_batch = shape(r, t, "micro_batch", false, 1, 1 << 16);
  m.vocab = shape(r, t, "vocab", false, 0, 1 << 24);
  if (t.contains("vocab") && m.vocab == 0) r.bad("transformer.vocab must be positive");
  // intermediate_size is Hugging Face's name (config.json) for Megatron's ffn_hidden: either, not two numbers.
  if (t.contains("ffn_hidden") && t.contains("intermediate_size") && t["ffn_hidden"] != t["intermediate_size"])
    r.bad("transformer: ffn_hidden {} and intermediate_size {} name the same size; give one", describe(t["ffn_hidden"]),
          describe(t["intermediate_size"]));
  m.ffn_hidden = shape(r, t, t.contains("intermediate_size") ? "intermediate_size" : "ffn_hidden", false, 4 * m.hidden, 1 << 22);
  m.kv_heads = shape(r, t, "num_key_value_heads", false, m.heads, 1 << 16);
  if (m.heads % m.kv_heads != 0)
    r.bad("transformer.num_key_value_heads: {} does not divide heads = {} (each K,V head serves heads / num_key_value_heads query heads)",
          m.kv_heads, m.heads);
  m.swiglu = choice(r, t, "mlp", {"gelu", "swiglu"}, "gelu") == "swiglu";
  if (t.contains("tie_word_embeddings")) m.tied_embeddings = boolean(r, t["tie_word_embeddings"], "transformer.tie_word_embeddings");
  m.learned_positions = choice(r, t, "position_embedding", {"learned", "rope"}, "learned") == "learned";
  m.rmsnorm = choice(r, t, "norm", {"layernorm", "rmsnorm"}, "layernorm") == "rmsnorm";
  if (t.contains("bias")) m.bias = boolean(r, t["bias"], "transformer.bias");
  m.experts = t.contains("experts") ? r.count(t["experts"], "transformer.experts", true, 1 << 16) : 0;
  m.top_k = shape(r, t, "top_k", false, 1, 64);
  m.moe_every = shape(r, t, "moe_every", false, 1, 1 << 16);
  m.dtype_bytes = shape(r, t, "dtype_bytes", false, 2, 8);
  if (m.hidden % m.heads != 0) r.bad("transformer.heads: {} does not divide hidden = {}", m.heads, m.hidden);
  if (m.experts > 1 && m.top_k > m.experts) r.bad("transformer.top_k: {} is more than the {} experts", m.top_k, m.experts);
  if (m.experts < 2 && (t.contains("top_k") || t.contains("moe_every"))) r.bad("transformer: top_k and moe_every need experts > 1");
  // Every byte count below is at most a few times s b h V or s^2 b a: keep them far inside 64 bits.
  const double act = static_cast<double>(m.seq) * static_cast<double>(m.micro_batch) *
                     static_cast<double>(std::max({m.hidden * m.top_k, m.vocab, m.ffn_hidden * m.top_k})) * 8;
  if (act > 1e15) r.bad("transformer: one micro-batch's activations ({:.3g} B) are absurd; check seq, micro_batch and hidden", act);
  if (total_params(m) > 1e13) r.bad("transformer: {:.4g} parameters is more than 1e13, the ceiling", total_params(m));
  read_parallel(r, parallel, m, h.par);
  return h;
}

bool is_moe_layer(const Transformer& m, std::uint64_t layer) { return m.experts > 1 && (layer + 1) % m.moe_every == 0; }

std::uint64_t kv_heads(const Transformer& m) { return m.kv_heads ? m.kv_heads : m.heads; }

double kv_width(const Transformer& m) {
  return static_cast<double>(m.hidden) * static_cast<double>(kv_heads(m)) / static_cast<double>(m.heads);
}

double final_norm_params(const Transformer& m) { return m.rmsnorm ? static_cast<double>(m.hidden) : 2 * static_cast<double>(m.hidden); }

double mlp_params(const Transformer& m) {
  const double h = static_cast<double>(m.hidden), f = static_cast<double>(m.ffn_hidden);
  const double matrices = m.swiglu ? 3 : 2; // SwiGLU: gate and up (h -> f), down (f -> h)
  return matrices * h * f + (m.bias ? (matrices - 1) * f + h : 0);
}

double layer_params(const Transformer& m, bool moe) {
  const double h = static_cast<double>(m.hidden), kv = kv_width(m);
  const double attention = 2 * h * h + 2 * h * kv + (m.bias ? 2 * h + 2 * kv : 0);
  const double experts = moe ? static_cast<double>(m.experts) : 1;
  const double norms = 2 * (m.rmsnorm ? h : 2 * h);
  return attention + experts * mlp_params(m) + (moe ? h * experts : 0) + norms;
}

double embedding_params(const Transformer& m) {
  const double positions = m.learned_positions ? static_cast<double>(m.seq) * static_cast<double>(m.hidden) : 0;
  return static_cast<double>(m.vocab) * static_cast<double>(m.hidden) + positions;
}

double output_params(const Transformer& m) {
  return m.tied_embeddings ? 0 : static_cast<double>(m.vocab) * static_cast<double>(m.hidden);
}

double expert_params(const Transformer& m) { return static_cast<double>(m.experts) * mlp_params(m); }

double total_params(const Transformer& m) {
  double p = embedding_params(m) + output_params(m) + final_norm_params(m);
  for (std::uint64_t i = 0; i < m.layers; ++i) p += layer_params(m, is_moe_layer(m, i));
  return p;
}

double attention_forward_flops(const Transformer& m) {
  const double b = static_cast<double>(m.micro_batch), s = static_cast<double>(m.seq), h = static_cast<double>(m.hidden);
  return 4 * b * s * h * h + 4 * b * s * h * kv_width(m) + 4 * b * s * s * h;
}

double mlp_forward_flops(const Transformer& m, bool moe) {
  const double b = static_cast<double>(m.micro_batch), s = static_cast<double>(m.seq), h = static_cast<double>(m.hidden),
               f = static_cast<double>(m.ffn_hidden);
  const double mlp = (m.swiglu ? 6 : 4) * b * s * h * f * (moe ? static_cast<double>(m.top_k) : 1);
  const double router = moe ? 2 * b * s * h * static_cast<double>(m.experts) : 0;
  return mlp + router;
}

double layer_forward_flops(const Transformer& m, bool moe) { return attention_forward_flops(m) + mlp_forward_flops(m, moe); }

double logits_forward_flops(const Transformer& m) {
  return 2 * static_cast<double>(m.micro_batch) * static_cast<double>(m.seq) * static_cast<double>(m.hidden) * static_cast<double>(m.vocab);
}

double narayanan_step_flops(const Transformer& m, double batch) {
  // Forward, backward (2x) and recomputed forward of every layer; forward and backward of the logits.
  const double sequences = batch / static_cast<double>(m.micro_batch);
  return sequences * (4 * static_cast<double>(m.layers) * layer_forward_flops(m, false) + 3 * logits_forward_flops(m));
}

Bytes tp_activation_bytes(const Transformer& m, const Parallel& p) {
  return m.micro_batch * (m.seq / static_cast<std::uint64_t>(p.cp)) * m.hidden * m.dtype_bytes;
}

Bytes pp_send_bytes(const Transformer& m, const Parallel& p) {
  return tp_activation_bytes(m, p) / static_cast<Bytes>(p.tp); // Narayanan et al. 2021 §4.1 scatter/gather
}

Bytes ep_alltoall_bytes(const Transformer& m, const Parallel& p) {
  // Tokens on one rank: its micro-batch's share of the sequence; with sequence parallelism each TP rank
  // holds s / tp of them, without it every TP rank routes the same tokens.
  const std::uint64_t split = static_cast<std::uint64_t>(p.cp) * (p.sequence_parallel ? static_cast<std::uint64_t>(p.tp) : 1);
  const std::uint64_t tokens = m.micro_batch * (m.seq / split);
  return tokens * m.top_k * m.hidden * m.dtype_bytes;
}

Bytes cp_kv_bytes(const Transformer& m, const Parallel& p) {
  const std::uint64_t kv = m.hidden / m.heads * kv_heads(m); // whole: heads divide hidden, tp divides kv_heads
  return 2 * m.micro_batch * (m.seq / static_cast<std::uint64_t>(p.cp)) * (kv / static_cast<std::uint64_t>(p.tp)) * m.dtype_bytes;
}

double layer_activation_bytes(const Transformer& m, const Parallel& p) {
  const double s = static_cast<double>(m.seq) / p.cp, b = static_cast<double>(m.micro_batch), h = static_cast<double>(m.hidden),
               a = static_cast<double>(m.heads), t = p.tp;
  const double sbh = s * b * h;
  if (p.recompute == Recompute::Full) return 2 * sbh / (p.sequence_parallel ? t : 1);
  if (p.sequence_parallel) return sbh * (34 / t + 5 * a * s / (h * t));
  return sbh * (10 + 24 / t + 5 * a * s / (h * t));
}

Memory memory_per_gpu(const HybridSpec& hs) {
  const Transformer& m = hs.model;
  const Parallel& p = hs.par;
  // The first pipeline stage: it holds the embedding and, in 1F1B, the most micro-batches in flight.
  const std::uint64_t per_stage = m.layers / static_cast<std::uint64_t>(p.pp);
  double dense = (embedding_params(m) + (p.pp == 1 ? output_params(m) : 0)) / p.tp, expert = 0;
  for (std::uint64_t i = 0; i < per_stage; ++i) { // L/p layers also when interleaved (v chunks of L/pv)
    const bool moe = is_moe_layer(m, i);
    const double all = layer_params(m, moe);
    if (moe) {
      const double mlp = expert_params(m);
      expert += mlp / p.tp / p.ep;
      dense += (all - mlp) / p.tp;
    } else {
      dense += all / p.tp;
    }
  }
  const double dpx = static_cast<double>(p.dp) / p.ep; // replicas of an expert
  Memory mem;
  auto shard = [&](double dense_b, double expert_b, bool sharded) {
    return sharded ? dense_b / p.dp + expert_b / dpx : dense_b + expert_b;
  };
  const double wb = static_cast<double>(m.dtype_bytes), gb = static_cast<double>(hs.grad_bytes);
  mem.weights = shard(dense * wb, expert * wb, p.zero >= 3);
  mem.grads = shard(dense * gb, expert * gb, p.zero >= 2);
  mem.optimizer = shard(dense * hs.optimizer_bytes, expert * hs.optimizer_bytes, p.zero >= 1);
  // Activations in flight on the first stage (Korthikanti et al. 2022 §4.2.3): 1F1B keeps p micro-batches
  // (interleaved: x (1 + (p-1)/(p v))), GPipe all m; each micro-batch holds L/p layers.
  double inflight = 0;
  if (p.schedule == PipeSchedule::GPipe) inflight = static_cast<double>(p.micro_batches);
  else inflight = std::min<double>(static_cast<double>(p.pp), static_cast<double>(p.micro_batches));
  if (p.virtual_stages > 1) inflight *= 1 + static_cast<double>(p.pp - 1) / (p.pp * p.virtual_stages);
  const double layer = layer_activation_bytes(m, p);
  mem.activations = inflight * static_cast<double>(per_stage) * layer;
  if (p.recompute == Recompute::Full) { // the layer being recomputed holds its full activations once
    Parallel full = p;
    full.recompute = Recompute::None;
    mem.activations += layer_activation_bytes(m, full);
  }
  return mem;
}

} // namespace ccsim::scenario
