#include "sim/report/hybrid_report.hpp"

#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/json_file.hpp"
#include "sim/core/json_io.hpp"
#include "sim/core/units.hpp"
#include "sim/observe/timeline.hpp"

namespace ccsim::report {
using namespace scenario;

namespace {

double ms(Time t) { return to_sec(t) * 1e3; }
double gib(double b) { return b / (1ULL << 30); }

std::string degrees(const Parallel& p) {
  return fmt::format("tp={} cp={} pp={} dp={} ep={} ({} GPUs, order {})", p.tp, p.cp, p.pp, p.dp, p.ep, p.world(), p.order);
}

// How one shape of collective ran: the model's algorithm (and protocol, channels under nccl), or why nothing ran.
std::string shape_how(const std::string& op, int ranks, const CollectiveShape& sh) {
  if (op == "send") return "(one per tensor rank, point to point)";
  if (ranks < 2) return "(one GPU: nothing sent)";
  if (sh.algo.empty()) return "";
  std::string how = sh.algo;
  if (!sh.proto.empty()) how += "/" + sh.proto;
  if (sh.channels > 1) how += fmt::format(", {} channels", sh.channels);
  if (!sh.simulated) how += ", closed form (a wait, no link use)";
  return "(" + how + ")";
}

} // namespace

std::string hybrid_table(const Scenario& s, const std::string& topology, const HybridResult& r) {
  const HybridSpec& h = *s.hybrid;
  const Transformer& m = h.model;
  const Parallel& p = h.par;
  std::string out = fmt::format("# scenario {} ({}) on {}\n", s.name, s.origin, topology);
  if (!s.description.empty()) out += fmt::format("# {}\n", s.description);
  out += fmt::format("# transformer: {:.4g} B parameters, {} layers, hidden {}, {} heads{}, seq {}, micro-batch {}, vocab {}{}{}\n",
                     total_params(m) / 1e9, m.layers, m.hidden, m.heads,
                     m.kv_heads != m.heads ? fmt::format(" ({} K,V heads)", m.kv_heads) : "", m.seq, m.micro_batch, m.vocab,
                     m.swiglu || m.ffn_hidden != 4 * m.hidden ? fmt::format(", {} MLP {}", m.swiglu ? "SwiGLU" : "GELU", m.ffn_hidden) : "",
                     m.experts > 1 ? fmt::format(", {} experts top-{} every {} layer(s)", m.experts, m.top_k, m.moe_every) : "");
  out += fmt::format("# parallel: {}; {} micro-batches, schedule {}{}{}, zero {}, recompute {}\n", degrees(p), p.micro_batches,
                     p.schedule == PipeSchedule::GPipe ? "gpipe" : "1f1b",
                     p.virtual_stages > 1 ? fmt::format(" interleaved x{}", p.virtual_stages) : "",
                     p.sequence_parallel ? ", sequence parallel" : "", p.zero, p.recompute == Recompute::Full ? "full" : "none");
  out += fmt::format("# compute: {:.4g} TFLOP/s peak ({}) x {:g} efficiency; network model {}{}; one engine run: {} jobs, {} transfers\n",
                     r.peak_flops / 1e12, r.gpu_kind.empty() ? "given" : r.gpu_kind, h.efficiency,
                     r.model_name + (s.params_label.empty() ? "" : " + " + s.params_label),
                     s.whatifs.empty() ? "" : " (what-if: " + s.whatifs + ")", r.jobs, r.transfers);
  out += fmt::format("step {:.3f} ms   model FLOP/s per GPU {:.1f} TFLOP/s ({:.1f}% of peak)   {:.1f} samples/s\n", ms(r.step),
                     r.model_flops_per_gpu / 1e12, 100 * r.model_flops_per_gpu / r.peak_flops,
                     static_cast<double>(p.dp * m.micro_batch * p.micro_batches) / to_sec(r.step));
  out += "# breakdown along pipeline stage 0 of the first replica (sums to the step)\n";
  out += fmt::format("  {:<28} {:>10.3f} ms\n", "compute", ms(r.compute));
  for (auto k : kCommKinds) {
    if (k == CommKind::Pp || k == CommKind::Dp) continue;
    auto it = r.exposed.find(k);
    if (it != r.exposed.end()) out += fmt::format("  {:<28} {:>10.3f} ms\n", fmt::format("exposed {} communication", to_string(k)), ms(it->second));
  }
  if (p.pp > 1) out += fmt::format("  {:<28} {:>10.3f} ms\n", "pipeline bubble + p2p wait", ms(r.bubble));
  out += fmt::format("  {:<28} {:>10.3f} ms\n", "data-parallel tail", ms(r.tail));
  out += "# communication per step: collectives in the whole machine; bytes GPU 0 puts on the wire (ring: 2(n-1)/n of an allreduce)\n";
  for (auto k : kCommKinds) {
    auto it = r.collectives.find(k);
    if (it == r.collectives.end()) continue;
    auto b = r.bytes_per_gpu.find(k);
    out += fmt::format("  {:<6} {:>9} collectives  {:>10.3f} GB\n", to_string(k), it->second,
                       static_cast<double>(b == r.bytes_per_gpu.end() ? 0 : b->second) / 1e9);
    // What they are: operation, group, buffer (nccl-tests' size) and how the network model ran them.
    for (const auto& [key, sh] : r.shapes) {
      const auto& [kind, op, ranks, size] = key;
      if (kind != k) continue;
      out += fmt::format("    {:>9} x {:<14} {:>10} on {:>4} GPUs  {}\n", sh.count, op, format_size(size), ranks, shape_how(op, ranks, sh));
    }
  }
  out += fmt::format("# memory per GPU (pipeline stage 0): weights {:.2f} + gradients {:.2f} + optimizer {:.2f} + activations {:.2f} = {:.2f} GiB",
                     gib(r.memory.weights), gib(r.memory.grads), gib(r.memory.optimizer), gib(r.memory.activations), gib(r.memory.total()));
  out += r.memory_capacity > 0 ? fmt::format(" of {:.0f} GiB\n", gib(r.memory_capacity)) : "\n";
  return out;
}

std::string hybrid_json(const Scenario& s, const std::string& topology, const HybridResult& r) {
  const Parallel& p = s.hybrid->par;
  nlohmann::ordered_json j;
  j["scenario"] = s.name;
  j["topology"] = topology;
  j["model"] = r.model_name;
  if (!s.params_label.empty()) j["network_params"] = s.params_label;
  if (!s.whatifs.empty()) j["whatif"] = s.whatifs;
  j["params"] = total_params(s.hybrid->model);
  j["parallel"] = {{"tp", p.tp}, {"cp", p.cp}, {"pp", p.pp}, {"dp", p.dp}, {"ep", p.ep}, {"micro_batches", p.micro_batches}};
  j["step_ms"] = ms(r.step);
  j["model_tflops_per_gpu"] = r.model_flops_per_gpu / 1e12;
  j["compute_ms"] = ms(r.compute);
  for (const auto& [k, t] : r.exposed) j["exposed_ms"][std::string(to_string(k))] = ms(t);
  j["bubble_ms"] = ms(r.bubble);
  j["tail_ms"] = ms(r.tail);
  for (const auto& [k, n] : r.collectives) j["collectives"][std::string(to_string(k))] = n;
  for (const auto& [k, b] : r.bytes_per_gpu) j["bytes_gpu0"][std::string(to_string(k))] = b;
  j["collective_shapes"] = nlohmann::ordered_json::array();
  for (const auto& [key, sh] : r.shapes) {
    const auto& [kind, op, ranks, size] = key;
    nlohmann::ordered_json e{{"kind", std::string(to_string(kind))}, {"op", op}, {"ranks", ranks}, {"size", size}, {"count", sh.count}};
    e["algo"] = sh.algo.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(sh.algo);
    e["proto"] = sh.proto.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(sh.proto);
    e["channels"] = sh.channels > 0 ? nlohmann::ordered_json(sh.channels) : nlohmann::ordered_json();
    e["simulated"] = sh.simulated;
    j["collective_shapes"].push_back(std::move(e));
  }
  j["memory_bytes"] = {{"weights", r.memory.weights}, {"gradients", r.memory.grads}, {"optimizer", r.memory.optimizer},
                       {"activations", r.memory.activations}, {"total", r.memory.total()}, {"capacity", r.memory_capacity}};
  j["engine"] = {{"jobs", r.jobs}, {"transfers", r.transfers}};
  return safe_dump(j, 1) + "\n"; // the machine's name may come from a file name, not UTF-8
}

std::string hybrid_timeline(const Scenario& s, const HybridResult& r) {
  static const char* kTracks[] = {"compute", "tp", "cp", "ep", "zero3", "pp wait", "pp send", "dp"};
  std::string out = "{\"traceEvents\":[\n";
  bool first = true;
  auto add = [&](const std::string& ev) {
    out += (first ? "" : ",\n") + ev;
    first = false;
  };
  const int pp = s.hybrid->par.pp;
  for (int st = 0; st < pp; ++st) {
    add(fmt::format(R"j({{"ph":"M","name":"process_name","pid":{},"args":{{"name":"pipeline stage {} (first replica)"}}}})j", st, st));
    for (int t = 0; t < 8; ++t)
      add(fmt::format(R"j({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":"{}"}}}})j", st, t, kTracks[t]));
  }
  for (const auto& sl : r.timeline) {
    int tid = 0;
    while (tid < 8 && sl.track != kTracks[tid]) ++tid;
    add(fmt::format(R"j({{"ph":"X","pid":{},"tid":{},"name":"{}","ts":{},"dur":{}}})j", sl.stage, tid, json_dump(nlohmann::json(sl.label)).substr(1, json_dump(nlohmann::json(sl.label)).size() - 2),
                    observe::us_literal(sl.begin), observe::us_literal(sl.end - sl.begin)));
  }
  out += "\n]}\n";
  return out;
}

} // namespace ccsim::report
