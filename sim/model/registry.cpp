#include "sim/model/registry.hpp"

#include <optional>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/model/nccl/builder.hpp"
#include "sim/model/nccl/nccl_version.hpp"
#include "sim/model/nccl/tables.hpp"
#include "sim/topology/p2p.hpp"
#include "sim/topology/routing.hpp"

namespace ccsim::model {

namespace {

// Whether the parameter set changes any link's bandwidth (then the model runs on a scaled copy).
bool scales_links(const ParamSet& p) {
  for (const auto& [type, e] : p.link_efficiency)
    if (e != 1.0) return true;
  return false;
}

// The copy a plain model runs on, when it needs one (a million-GPU crossbar is not copied for nothing): under a
// user's --p2p-level every port of a GPU with a peer beyond the level copies through host memory (a plain model
// has no per-pair transport; the nccl model applies the level per ring hop), then the parameter set's link scaling.
std::optional<topology::Topology> adapted_topology(const topology::Topology& t, const ParamSet& p) {
  std::optional<topology::Topology> out;
  if (t.p2p_level >= 0) out = topology::with_p2p_level(t, static_cast<topology::PathClass>(t.p2p_level), "--p2p-level");
  if (scales_links(p)) out = scaled_topology(out ? *out : t, p);
  return out;
}

// A plain network model on the topology, or on its adapted copy, with its own router.
class PlainModel final : public metrics::PlanBuilder {
 public:
  PlainModel(const topology::Topology& t, const engine::NetworkEntry& net, const ModelOptions& o)
      : adapted_(adapted_topology(t, o.params)), topo_(adapted_ ? *adapted_ : t), router_(topo_),
        builder_(topo_, router_, net, from_us(o.params.step_us),
                 from_us(o.params.launch_us + o.params.launch_per_gpu_us * o.gpus_per_thread)),
        fitted_(!o.params.origin.empty()) {
    if (!o.relay_gpus.empty()) router_.set_relay_gpus(o.relay_gpus);
  }
  std::vector<engine::RunPlan> plans(const metrics::RunConfig& cfg, metrics::SizePlan size) override {
    auto plans = builder_.plans(cfg, size);
    // A fitted set's step_us is a per-step cost of the lockstep model it was fitted under: replay it so.
    if (fitted_)
      for (auto& p : plans) p.params.semantics = engine::Semantics::mpi;
    return plans;
  }

 private:
  std::optional<topology::Topology> adapted_;
  const topology::Topology& topo_; // adapted_, or the caller's topology
  topology::Router router_;
  metrics::PlainBuilder builder_;
  bool fitted_;
};

// Only --model nccl reads the NCCL flags, but their names are checked under every model: a typo or an
// absurd value is one line naming the flag, never silently ignored (a --nccl-tables file is read, once: cached).
void check_nccl_flags(const ModelOptions& o) {
  if (!o.nccl_tables.empty()) nccl::load_tables(o.nccl_tables);
  nccl::algo_mode_from(o.nccl_algo);
  nccl::proto_set_from(o.nccl_proto);
  nccl::nvls_mode_from(o.nvls);
  nccl::nvls_mode_from(o.collnet, "--collnet");
  nccl::msccl_mode_from(o.msccl);
  nccl::nccl_version_from(o.nccl_version);
  if (!o.gpu_arch.empty()) nccl::arch_flag(o.gpu_arch);
}

template <std::size_t I>
std::unique_ptr<metrics::PlanBuilder> make_plain(const topology::Topology& t, const ModelOptions& o) {
  check_nccl_flags(o);
  return std::make_unique<PlainModel>(t, engine::network_entries()[I], o);
}

std::unique_ptr<metrics::PlanBuilder> make_nccl(const topology::Topology& t, const ModelOptions& o) {
  nccl::Options n;
  n.tables = o.nccl_tables;
  n.gpu_arch = o.gpu_arch;
  n.mode = nccl::algo_mode_from(o.nccl_algo);
  n.nvls = nccl::nvls_mode_from(o.nvls);
  n.collnet = nccl::nvls_mode_from(o.collnet, "--collnet");
  n.msccl = nccl::msccl_mode_from(o.msccl);
  n.params = o.params;
  n.gpus_per_thread = o.gpus_per_thread;
  n.relay_gpus = o.relay_gpus;
  n.channels = o.nccl_channels;
  n.min_channels = o.nccl_min_channels;
  n.max_channels = o.nccl_max_channels;
  n.min_ctas = o.nccl_min_ctas;
  n.max_ctas = o.nccl_max_ctas;
  n.nvls_channels = o.nvls_channels;
  if (o.nvls_nchannels_set) n.nvls_nchannels = o.nvls_nchannels;
  n.nccl_version = o.nccl_version;
  n.nvls_chunk_bytes = o.nvls_chunk_bytes;
  n.nvls_tree_max_chunk_bytes = o.nvls_tree_max_chunk_bytes;
  n.protos = nccl::proto_set_from(o.nccl_proto);
  return std::make_unique<nccl::Builder>(t, std::move(n));
}

// The plain models take their names and descriptions from the engine's network table (one source).
const ModelEntry kModels[] = {
    {engine::network_entries()[0].name, engine::network_entries()[0].description, false, make_plain<0>},
    {engine::network_entries()[1].name, engine::network_entries()[1].description, false, make_plain<1>},
    {engine::network_entries()[2].name, engine::network_entries()[2].description, false, make_plain<2>},
    {"nccl", "NCCL's own tuning model (models/nccl.json) picks algorithm, protocol and channels per size; its "
             "per-channel schedules are replayed by the engine",
     true, make_nccl},
};

} // namespace

std::span<const ModelEntry> model_registry() { return kModels; }

const ModelEntry& require_model(std::string_view name) {
  for (const auto& m : kModels)
    if (m.name == name) return m;
  fail("--model: unknown model '{}' ({}; `ccsim --model help` describes them)", name, model_names());
}

std::unique_ptr<metrics::PlanBuilder> make_model(std::string_view name, const topology::Topology& t, const ModelOptions& o) {
  return require_model(name).make(t, o);
}

std::string model_names() {
  std::string s;
  for (const auto& m : kModels) s += fmt::format("{}{}", s.empty() ? "" : ", ", m.name);
  return s;
}

std::string model_table() {
  std::string s;
  for (const auto& m : kModels) s += fmt::format("  {:<14} {}\n", m.name, m.description);
  return s;
}

} // namespace ccsim::model
