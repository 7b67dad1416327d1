// Hybrid parallelism in a scenario: a transformer split by tensor (tp), context (cp), pipeline (pp),
// data (dp) and expert (ep) parallelism, as Megatron-LM lays it out. This file holds the schema and the
// closed forms every other part uses: parameter counts, FLOPs, the bytes of each collective a layer
// inserts, and memory per GPU. The formulas and their sources are in docs/training.md.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "sim/core/units.hpp"

namespace ccsim::scenario {

class Reader;

// The model's shapes (Megatron-LM argument names in comments).
struct Transformer {
  std::uint64_t layers = 0;        // --num-layers
  std::uint64_t hidden = 0;        // --hidden-size (h)
  std::uint64_t heads = 0;         // --num-attention-heads (a)
  std::uint64_t seq = 0;           // --seq-length (s)
  std::uint64_t micro_batch = 1;   // --micro-batch-size (b)
  std::uint64_t vocab = 0;         // --padded-vocab-size (V)
  std::uint64_t ffn_hidden = 0;    // --ffn-hidden-size (default 4h; HF intermediate_size)
  std::uint64_t kv_heads = 0;      // --num-query-groups (HF num_key_value_heads; default = heads: no grouped-query attention)
  bool swiglu = false;             // --swiglu: gated MLP with three h x f matrices (HF LlamaMLP gate/up/down)
  bool tied_embeddings = true;     // HF tie_word_embeddings; false: the output layer is a second V x h matrix
  bool learned_positions = true;   // false: rotary positions (--position-embedding-type rope), no s x h table
  bool rmsnorm = false;            // --normalization RMSNorm: h weights per norm instead of LayerNorm's 2h
  bool bias = true;                // false: --disable-bias-linear (no bias in the linear layers)
  std::uint64_t experts = 0;       // 0 or 1 = dense; > 1 = MoE layers with this many experts
  std::uint64_t top_k = 1;         // experts each token is routed to
  std::uint64_t moe_every = 1;     // every n-th layer is MoE (Switch: 2); layer i is MoE when (i + 1) % n == 0
  Bytes dtype_bytes = 2;           // activations and weights (fp16/bf16 = 2)
};

enum class PipeSchedule { GPipe, OneFOneB };
enum class Recompute { None, Full };

struct Parallel {
  int tp = 1, cp = 1, pp = 1, dp = 1, ep = 1;
  std::string order = "tp-cp-ep-dp-pp"; // fastest-varying first (Megatron-Core's default)
  std::uint64_t micro_batches = 1;      // per pipeline per step (= gradient accumulation steps when pp = 1)
  PipeSchedule schedule = PipeSchedule::OneFOneB;
  int virtual_stages = 1;               // interleaved 1F1B: model chunks per pipeline rank
  bool sequence_parallel = false;       // TP allreduce -> reduce-scatter + allgather
  int zero = 0;                         // ZeRO stage 0 (plain allreduce), 1, 2 or 3
  Recompute recompute = Recompute::None;
  int world() const { return tp * cp * pp * dp; }
};

struct HybridSpec {
  Transformer model;
  Parallel par;
  double efficiency = 0.5;          // achieved / peak tensor FLOP/s for the layers' math
  double peak_flops = 0;            // 0 = from the GPU kind (models/gpus.json peak_tensor_flops)
  std::string gpu;                  // GPU kind for peak and memory; "" = the topology's
  Bytes grad_bytes = 2;             // gradient element size in the data-parallel exchange
  double optimizer_bytes = 12;      // K of the ZeRO paper (mixed-precision Adam)
  bool allow_oversubscribed = false;
};

// Reads "parallel" and "transformer" (and "efficiency", "gpu", ...) of a scenario file.
HybridSpec hybrid_from_json(const Reader& r, const nlohmann::json& parallel, const nlohmann::json& transformer);

// ---- closed forms (docs/training.md) ----
bool is_moe_layer(const Transformer& m, std::uint64_t layer);
std::uint64_t kv_heads(const Transformer& m); // num_key_value_heads, or heads when 0
// Width of the K and V projections: kv_heads x h / a (= h without grouped-query attention).
double kv_width(const Transformer& m);
// Parameters of one transformer layer, whole (not split): attention 2h^2 + 2h kv (q, o; k, v) + biases
// 2h + 2kv; MLP 2hf (3hf SwiGLU) + biases f + h (2f + h); norms 2 x 2h (RMSNorm 2 x h); x experts for MoE
// plus the h x E router. GPT defaults: 4h^2 + 4h, 2hf + f + h, 4h.
double layer_params(const Transformer& m, bool moe);
double embedding_params(const Transformer& m); // V h + s h (rotary positions: V h)
double output_params(const Transformer& m);    // untied output layer V h; 0 when tied
double final_norm_params(const Transformer& m); // the norm after the last layer: 2h (RMSNorm h)
double mlp_params(const Transformer& m);       // one MLP: 2hf + f + h (SwiGLU 3hf + 2f + h; no bias: 2hf, 3hf)
double expert_params(const Transformer& m);    // the experts' MLPs of one MoE layer: E x mlp_params
double total_params(const Transformer& m);
// Forward FLOPs of one layer's attention for one micro-batch, whole: 4bsh^2 + 4bsh kv (q, o; k, v)
// + 4bs^2h (scores and their product with V); 8bsh^2 + 4bs^2h without grouped-query attention.
double attention_forward_flops(const Transformer& m);
// Forward FLOPs of one layer's MLP (experts: x top-k, plus the router 2bshE): 4bshf, SwiGLU 6bshf.
double mlp_forward_flops(const Transformer& m, bool moe);
// Their sum = 24bsh^2 (1 + s/6h) for a GPT with f = 4h (Narayanan et al. 2021, eq. 3 without the factor 4
// for fwd+bwd+recompute).
double layer_forward_flops(const Transformer& m, bool moe);
double logits_forward_flops(const Transformer& m); // 2 b s h V
// Narayanan et al.'s model FLOPs per step for B sequences: (B/b) (4 l x dense layer forward + 3 x logits),
// which is their 96 B s l h^2 (1 + s/6h + V/16lh) (with recompute) for a GPT with f = 4h.
double narayanan_step_flops(const Transformer& m, double batch);

// Bytes moved by one tensor-parallel collective: the b s h activation (per context-parallel rank: s/cp).
Bytes tp_activation_bytes(const Transformer& m, const Parallel& p);
// Bytes one rank sends to the next pipeline stage per micro-batch (activation; with tp, scatter-gather: /tp).
Bytes pp_send_bytes(const Transformer& m, const Parallel& p);
// Bytes one rank sends in one all-to-all (dispatch or combine) of an MoE layer: tokens x top-k x h x bytes.
Bytes ep_alltoall_bytes(const Transformer& m, const Parallel& p);
// Bytes of one context-parallel K,V allgather per rank (its own block): 2 b (s/cp) kv / tp x bytes.
Bytes cp_kv_bytes(const Transformer& m, const Parallel& p);

// Memory per GPU on the fullest pipeline stage (Korthikanti et al. 2022, ZeRO paper).
struct Memory {
  double weights = 0, grads = 0, optimizer = 0, activations = 0;
  double total() const { return weights + grads + optimizer + activations; }
};
// Activation bytes of one layer for one micro-batch on one GPU (Korthikanti et al. 2022, Table 2):
// sbh (34 + 5as/h) without parallelism; with tp: sbh (10 + 24/t + 5as/(ht)); with tp and sequence
// parallel: sbh (34/t + 5as/(ht)); with full recomputation only the layer input, 2sbh (/t with sp).
double layer_activation_bytes(const Transformer& m, const Parallel& p);
Memory memory_per_gpu(const HybridSpec& h);

} // namespace ccsim::scenario
