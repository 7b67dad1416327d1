// Hybrid parallelism checked against closed forms computed here by hand: the 1F1B bubble (p-1)/m,
// Megatron's 4 tensor-parallel allreduces of b s h per layer, ZeRO-3's 1.5x data-parallel volume, the
// MoE all-to-all of tokens x top-k x h x bytes, Korthikanti et al.'s activation memory, the
// pipeline orders, and the engine's job dependencies the step is built on.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/engine/engine.hpp"
#include "sim/engine/network.hpp"
#include "sim/scenario/hybrid_step.hpp"
#include "sim/scenario/pipeline.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using nlohmann::json;
using scenario::CommKind;

namespace {

// A fast flat machine: links so fast and latency-free that communication is negligible next to compute.
const std::string kFast = "crossbar:ranks=16,bw=1000000GB/s,alpha=0us";

json base(json parallel, json transformer = json::object()) {
  json t = {{"layers", 8}, {"hidden", 1024}, {"heads", 16}, {"seq", 1024}, {"micro_batch", 1}};
  for (auto& [k, v] : transformer.items()) t[k] = v;
  return {{"transformer", t}, {"parallel", parallel}, {"compute", {{"peak_flops", 1e15}, {"efficiency", 1.0}}}, {"topology", kFast}};
}

scenario::HybridResult step(const json& j) {
  const auto s = scenario::scenario_from_json(j, "test.json");
  const auto topo = topology::resolve_topology(s.topologies.front());
  return scenario::run_hybrid_step(s, topo, false);
}

} // namespace

TEST_CASE("1F1B and GPipe: the pipeline bubble is (p-1)/m of the ideal step (Narayanan et al. 2021)") {
  // 8 layers on p = 4 stages, 2 each; one layer's forward is 24 b s h^2 (1 + s/6h) FLOPs
  // = 24 x 1024 x 1024^2 x 7/6 = 28 x 2^30; at 1e15 FLOP/s a stage's forward takes 2 x 28 x 2^30 / 1e15 s,
  // its backward twice that.
  const double tf = 2.0 * 28 * (1ULL << 30) / 1e15, tb = 2 * tf;
  for (const char* sched : {"1f1b", "gpipe"}) {
    CAPTURE(sched);
    const int p = 4, m = 8;
    const auto r = step(base({{"pp", p}, {"micro_batches", m}, {"schedule", sched}}));
    const double ideal = m * (tf + tb);
    CHECK(to_sec(r.compute) == doctest::Approx(ideal).epsilon(1e-6));
    // (m + p - 1)(tf + tb): the bubble is (p - 1)(tf + tb) = (p-1)/m of the ideal.
    CHECK(to_sec(r.step) == doctest::Approx((m + p - 1) * (tf + tb)).epsilon(1e-3));
    CHECK((to_sec(r.step) - ideal) / ideal == doctest::Approx(double(p - 1) / m).epsilon(1e-3));
    CHECK(to_sec(r.bubble) == doctest::Approx((p - 1) * (tf + tb)).epsilon(1e-3));
  }
}

TEST_CASE("interleaved 1F1B divides the bubble by the virtual stages (Narayanan et al. 2021 section 2.2.2)") {
  const double tf = 2.0 * 28 * (1ULL << 30) / 1e15, tb = 2 * tf; // a whole stage (2 layers), as above
  const int p = 4, m = 8, v = 2;
  const auto r = step(base({{"pp", p}, {"micro_batches", m}, {"virtual_stages", v}}));
  CHECK((to_sec(r.step) - m * (tf + tb)) / (m * (tf + tb)) == doctest::Approx(double(p - 1) / (m * v)).epsilon(1e-3));
}

TEST_CASE("tensor parallelism: 4 allreduces of b s h per layer per micro-batch, 6 with full recomputation") {
  // 3 layers, b = 2, s = 1024, h = 1024, 2-byte activations: each allreduce is 2 x 1024 x 1024 x 2 = 4 MiB.
  // A ring allreduce over 2 GPUs sends 2(n-1)/n = 1 buffer per GPU.
  const json t = {{"layers", 3}, {"micro_batch", 2}};
  const auto r = step(base({{"tp", 2}}, t));
  CHECK(r.collectives.at(CommKind::Tp) == 4 * 3);
  CHECK(r.bytes_per_gpu.at(CommKind::Tp) == 4ULL * 3 * (4ULL << 20));
  const auto rc = step(base({{"tp", 2}, {"recompute", "full"}}, t));
  CHECK(rc.collectives.at(CommKind::Tp) == 6 * 3);
  // Sequence parallelism: each allreduce becomes a reduce-scatter and an allgather of the same buffer,
  // each sending (n-1)/n of it: the same bytes in twice the collectives.
  const auto sp = step(base({{"tp", 2}, {"sequence_parallel", true}}, t));
  CHECK(sp.collectives.at(CommKind::Tp) == 8 * 3);
  CHECK(sp.bytes_per_gpu.at(CommKind::Tp) == 4ULL * 3 * (4ULL << 20));
}

TEST_CASE("ZeRO-3 moves 1.5x the data-parallel volume of a plain allreduce, stages 1-2 the same (Rajbhandari et al. 2020)") {
  auto bytes = [](int zero) {
    const auto r = step(base({{"dp", 4}, {"zero", zero}}, {{"layers", 4}}));
    std::uint64_t b = 0;
    for (auto k : {CommKind::Dp, CommKind::Zero})
      if (r.bytes_per_gpu.count(k)) b += r.bytes_per_gpu.at(k);
    return static_cast<double>(b);
  };
  const double plain = bytes(0);
  // 4 layers of 12h^2 + 13h parameters (h = 1024) in 2-byte gradients, allreduced: 2(n-1)/n x 2 bytes each.
  CHECK(plain == doctest::Approx(2 * 0.75 * 2 * 4 * (12.0 * 1024 * 1024 + 13 * 1024)).epsilon(1e-6));
  CHECK(bytes(1) / plain == doctest::Approx(1.0).epsilon(1e-6));
  CHECK(bytes(3) / plain == doctest::Approx(1.5).epsilon(1e-6));
}

TEST_CASE("MoE: an all-to-all of tokens x top-k x h x bytes, dispatch and combine in forward and in backward") {
  const json t = {{"layers", 2}, {"experts", 4}, {"top_k", 2}};
  // tokens = b s = 1024; 1024 x 2 x 1024 x 2 bytes = 4 MiB per all-to-all, of which (n-1)/n leaves the GPU.
  const auto s = scenario::scenario_from_json(base({{"dp", 4}, {"ep", 4}}, t), "test.json");
  CHECK(scenario::ep_alltoall_bytes(s.hybrid->model, s.hybrid->par) == 4ULL << 20);
  const auto r = step(base({{"dp", 4}, {"ep", 4}}, t));
  CHECK(r.collectives.at(CommKind::Ep) == 4 * 2);
  CHECK(r.bytes_per_gpu.at(CommKind::Ep) == 4 * 2 * (3ULL << 20));
}

TEST_CASE("activation memory per layer follows Korthikanti et al. 2022") {
  scenario::Transformer m;
  m.seq = 2048, m.micro_batch = 1, m.hidden = 4096, m.heads = 32;
  scenario::Parallel p;
  // s b h (34 + 5 a s / h) = 2048 x 4096 x (34 + 80) = 956301312 bytes
  CHECK(scenario::layer_activation_bytes(m, p) == doctest::Approx(956301312.0));
  p.tp = 8; // s b h (10 + 24/t + 5 a s / (h t)) = 8388608 x (10 + 3 + 10)
  CHECK(scenario::layer_activation_bytes(m, p) == doctest::Approx(8388608.0 * 23));
  p.sequence_parallel = true; // s b h (34/t + 5 a s/(h t)) = 8388608 x (4.25 + 10)
  CHECK(scenario::layer_activation_bytes(m, p) == doctest::Approx(8388608.0 * 14.25));
  p.recompute = scenario::Recompute::Full; // 2 s b h / t
  CHECK(scenario::layer_activation_bytes(m, p) == doctest::Approx(2.0 * 8388608 / 8));
}

TEST_CASE("a configuration that does not fit the GPU is a one-line error unless allowed") {
  // 40 layers of h = 8192 with no sharding on an 80 GiB A100: 40 x 12 x 8192^2 = 32e9 parameters x 16 bytes.
  json j = base({{"dp", 2}}, {{"layers", 40}, {"hidden", 8192}, {"heads", 64}});
  j["topology"] = "machine:gpu=a100,gpus=2";
  j["compute"] = {{"efficiency", 0.5}};
  const auto s = scenario::scenario_from_json(j, "big.json");
  const auto topo = topology::resolve_topology(s.topologies.front());
  CHECK_THROWS_WITH_AS(scenario::run_hybrid_step(s, topo, false), doctest::Contains("big.json: needs"), Error);
  CHECK(scenario::run_hybrid_step(s, topo, true).memory.total() > 80.0 * (1ULL << 30));
}

TEST_CASE("pipeline orders: every stage runs each micro-batch's forward and backward once, warm-up p-k-1 under 1F1B") {
  scenario::Parallel p;
  p.pp = 4, p.micro_batches = 8;
  for (int k = 0; k < 4; ++k) {
    const auto ops = scenario::stage_ops(p, k);
    CHECK(ops.size() == 16);
    int warm = 0;
    while (ops[static_cast<std::size_t>(warm)].forward) ++warm;
    CHECK(warm == 4 - k - 1 + 1); // the warm-up forwards, then the steady state's first forward
  }
  p.virtual_stages = 2;
  const auto ops = scenario::stage_ops(p, 0);
  CHECK(ops.size() == 32);
  int f = 0;
  for (const auto& o : ops) f += o.forward;
  CHECK(f == 16);
}

TEST_CASE("engine: a job with `after` starts when the jobs it waits for are done, plus its delay") {
  const auto topo = topology::resolve_topology("crossbar:ranks=2,bw=1GB/s,alpha=0us");
  topology::Router router(topo);
  struct Send final : schedule::Schedule { // rank 0 sends 1000 bytes to rank 1
    Send() : Schedule([] { schedule::CollArgs a; a.ranks = 2; a.count = 1000; a.elt_size = 1; return a; }()) {}
    bool step(int rank, int s, std::vector<schedule::Action>& out) const override {
      out.clear();
      if (s > 0) return false;
      if (rank == 0) schedule::send(out, 1, {0, 1000});
      else schedule::recv(out, 0, {0, 1000});
      return true;
    }
  } send;
  std::vector<engine::Job> jobs(2);
  for (auto& j : jobs) {
    j.schedule = &send;
    j.node_of_rank = {topo.gpu_node(0), topo.gpu_node(1)};
    j.elt_size = 1;
  }
  jobs[1].after = {{0, 500'000}}; // 0.5 us after job 0
  engine::Engine eng(topo, router, {}, engine::fifo_network());
  const auto r = eng.run(jobs);
  // 1000 B at 1 GB/s = 1 us each: job 1 runs from 1.5 us to 2.5 us.
  CHECK(r.job_finish[0] == 1'000'000);
  CHECK(r.job_finish[1] == 2'500'000);
  jobs[0].after = {{1, 0}};
  CHECK_THROWS_AS(eng.run(jobs), Error);
}

TEST_CASE("contention: data-parallel buckets overlapping backward slow the tensor-parallel allreduces sharing GPU links") {
  // On a 4-GPU crossbar each GPU has one link to the switch: GPU 0's TP group {0,1} and DP group {0,2}
  // share it. With overlap the DP reduce-scatters run during backward, beside the TP allreduces;
  // without it they run after the last backward, so the TP allreduces have the links to themselves.
  json j = base({{"tp", 2}, {"dp", 2}, {"zero", 1}}, {{"layers", 4}});
  j["topology"] = "crossbar:ranks=4,bw=10GB/s,alpha=0us";
  j["compute"] = {{"peak_flops", 2e14}, {"efficiency", 1.0}}; // backward of a layer (0.15 ms) shorter than its buckets (1.2 ms)
  j["bucket_size"] = "4M";
  auto exposed_tp = [&](bool overlap) {
    j["overlap"] = overlap;
    return step(j).exposed.at(CommKind::Tp);
  };
  const Time alone = exposed_tp(false), shared = exposed_tp(true);
  CHECK(shared > alone + alone / 10);
}

TEST_CASE("every network model runs a hybrid step, nccl included") {
  json j = base({{"tp", 2}, {"pp", 2}, {"dp", 2}, {"micro_batches", 4}}, {{"vocab", 51200}});
  j["topology"] = "machine:gpu=a100,gpus=8";
  j["compute"] = {{"efficiency", 0.5}};
  for (const char* model : {"fifo", "store_forward", "flow", "nccl"}) {
    CAPTURE(model);
    j["network"] = {{"model", model}};
    const auto r = step(j);
    CHECK(r.step > r.compute);
    CHECK(r.collectives.at(CommKind::Tp) == 4 * 4 * 4 * 2 * 2); // 4 layers/stage x 4 micro x 4 AR x 2 stages x 2 replicas
    CHECK(r.collectives.at(CommKind::Pp) == 2 * 4 * 2);         // fwd + bwd per micro-batch, per replica
  }
}

TEST_CASE("the breakdown adds up to the step, and the rank order decides where tensor groups sit") {
  json j = base({{"tp", 2}, {"pp", 2}, {"dp", 4}, {"micro_batches", 4}}, {{"vocab", 51200}});
  j["topology"] = "machine:gpu=a100,gpus=8,nodes=2,nics=8x200G,kind=ib";
  j["compute"] = {{"efficiency", 0.5}};
  const auto r = step(j);
  Time sum = r.compute + r.bubble + r.tail;
  for (const auto& [k, t] : r.exposed) sum += t;
  CHECK(sum == r.step);
  // Default order tp-cp-ep-dp-pp: a tensor group is GPUs 0,1 of one node (NVLink). With dp first, rank 0's
  // tensor partner is rank 4 x 2 = 8, on the other node: its allreduces cross the 200 Gb/s NICs.
  j["parallel"]["order"] = "dp-pp-tp";
  const auto across = step(j);
  CHECK(across.exposed.at(CommKind::Tp) > 2 * r.exposed.at(CommKind::Tp));
}

TEST_CASE("a Llama-3-70B shape (grouped-query attention, SwiGLU, RMSNorm, no biases, untied) has its 70.55 B parameters") {
  // meta-llama/Meta-Llama-3-70B config.json: hidden_size 8192, num_hidden_layers 80, num_attention_heads 64,
  // num_key_value_heads 8, intermediate_size 28672, vocab_size 128256, tie_word_embeddings false, rope, RMSNorm.
  const json t = {{"layers", 80}, {"hidden", 8192}, {"heads", 64}, {"num_key_value_heads", 8}, {"intermediate_size", 28672},
                  {"mlp", "swiglu"}, {"vocab", 128256}, {"tie_word_embeddings", false}, {"position_embedding", "rope"},
                  {"norm", "rmsnorm"}, {"bias", false}, {"seq", 8192}};
  const auto s = scenario::scenario_from_json(base({{"tp", 8}}, t), "test.json");
  // By hand: K,V width 8192 x 8 / 64 = 1024. Per layer q 8192^2 = 67108864, k and v 2 x 8192 x 1024 = 16777216,
  // o 67108864, MLP 3 x 8192 x 28672 = 704643072, two RMSNorms 2 x 8192 = 16384: 855654400; x 80 = 68452352000.
  // Embedding and output 2 x 128256 x 8192 = 2101346304; final norm 8192. Hugging Face lists 70553706496.
  CHECK(scenario::layer_params(s.hybrid->model, false) == 855654400.0);
  CHECK(scenario::total_params(s.hybrid->model) == 68452352000.0 + 2101346304.0 + 8192.0);
  // The same shape without the new keys is a GPT: 4h^2 + 4h + 2hf + f + h + 4h per layer.
  const json gpt = {{"layers", 80}, {"hidden", 8192}, {"heads", 64}, {"ffn_hidden", 28672}, {"vocab", 128256}, {"seq", 8192}};
  const auto g = scenario::scenario_from_json(base({{"tp", 8}}, gpt), "test.json");
  CHECK(scenario::layer_params(g.hybrid->model, false) == 4.0 * 8192 * 8192 + 4 * 8192 + 2.0 * 8192 * 28672 + 28672 + 8192 + 4 * 8192);
}

TEST_CASE("grouped-query attention and SwiGLU set the FLOPs, the K,V allgather and the gradient bytes") {
  // h 1024, 16 heads, 4 K,V heads: K,V width 256; f 2816 SwiGLU without biases, RMSNorm, untied vocab 1000.
  // Written as papers write them ("SwiGLU", "RMSNorm"): the names are read without case.
  const json t = {{"layers", 2}, {"num_key_value_heads", 4}, {"intermediate_size", 2816}, {"mlp", "SwiGLU"}, {"bias", false},
                  {"norm", "RMSNorm"}, {"vocab", 1000}, {"tie_word_embeddings", false}, {"position_embedding", "rope"}};
  const auto s = scenario::scenario_from_json(base({{"dp", 2}}, t), "test.json");
  const auto& m = s.hybrid->model;
  // Forward, b 1, s 1024: q and o 4bsh^2 = 4294967296, k and v 4bsh x 256 = 1073741824, scores 4bs^2h = 4294967296,
  // SwiGLU 6bshf = 17716740096.
  CHECK(scenario::attention_forward_flops(m) == 4294967296.0 + 1073741824.0 + 4294967296.0);
  CHECK(scenario::layer_forward_flops(m, false) == 4294967296.0 + 1073741824.0 + 4294967296.0 + 17716740096.0);
  // Context parallel 2, tp 2: each rank's K and V block is 2 x 1 x 512 x (256 / 2) x 2 bytes.
  const auto c = scenario::scenario_from_json(base({{"cp", 2}, {"tp", 2}}, t), "test.json");
  CHECK(scenario::cp_kv_bytes(c.hybrid->model, c.hybrid->par) == 2ULL * 512 * 128 * 2);
  // Data parallel 2: the allreduced gradients are 2 layers of 2h^2 + 2h x 256 + 3hf + 2h = 11274240 and the
  // embedding and output 2 x 1000 x 1024; 2(n-1)/n = 1 x 2 bytes each leave a GPU.
  const auto r = step(base({{"dp", 2}}, t));
  CHECK(static_cast<double>(r.bytes_per_gpu.at(CommKind::Dp)) == doctest::Approx(2.0 * (2 * 11274240.0 + 2 * 1000 * 1024)).epsilon(1e-6));
}

TEST_CASE("the grouped-query and MLP keys refuse what cannot be built, in one line naming the key") {
  auto refused = [](json parallel, json t) {
    try {
      (void)scenario::scenario_from_json(base(std::move(parallel), std::move(t)), "test.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(refused({{"tp", 8}}, {{"num_key_value_heads", 4}}) == "scenario test.json: parallel.tp: 8 does not divide transformer.num_key_value_heads = 4");
  CHECK(refused({}, {{"num_key_value_heads", 5}}).find("transformer.num_key_value_heads: 5 does not divide heads = 16") != std::string::npos);
  CHECK(refused({}, {{"mlp", "relu2"}}) == "scenario test.json: transformer.mlp: unknown 'relu2' (gelu, swiglu)");
  CHECK(refused({}, {{"ffn_hidden", 4096}, {"intermediate_size", 2816}}).find("name the same size; give one") != std::string::npos);
  CHECK(refused({}, {{"tie_word_embeddings", "no"}}).find("transformer.tie_word_embeddings must be true or false") != std::string::npos);
}
