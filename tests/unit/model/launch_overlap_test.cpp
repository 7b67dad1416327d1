// Issue 14, what an nccl-tests row costs when one thread drives N GPUs (-g N): nccl-tests issues its 20
// iterations back to back and synchronises once after them, and neither NCCL nor RCCL makes the host wait
// for the GPU on a launch, so the host's N serial launches of one iteration and the GPUs' run of an earlier
// one are two pipelined stages (sim/model/launch_overlap.hpp, engine::pipelined_time). Expected values are
// worked by hand in the comments: per iteration, (iters x the slower stage + the faster one) / iters.
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/engine/run_plan.hpp"
#include "sim/model/calibrate.hpp"
#include "sim/model/launch_kind.hpp"
#include "sim/model/launch_overlap.hpp"
#include "sim/model/nccl/nccl_version.hpp"
#include "sim/model/registry.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/topology_json.hpp"
#include "nccl_run_config.hpp"

using namespace ccsim;

namespace {

model::ParamSet hip_launch(double per_gpu_us) {
  model::ParamSet p;
  p.model = "nccl";
  p.launch_by_kind["hip/gN"] = {0.0, per_gpu_us};
  p.launch_by_kind["cuda/gN"] = {0.0, per_gpu_us};
  return p;
}

} // namespace

TEST_CASE("pipelined time: the slower stage paces the iterations, the faster shows once in iters") {
  // Host 40 us, GPU 30 us, 20 iterations: 20 x 40 + 30 = 830 us, 41.5 us per iteration.
  CHECK(engine::pipelined_time(from_us(40), from_us(30), 20) == from_us(41.5));
  // GPU 100 us: 20 x 100 + 40 = 2040 us, 102 us per iteration (the launches hide under the GPU).
  CHECK(engine::pipelined_time(from_us(40), from_us(100), 20) == from_us(102));
  // One iteration cannot overlap: the host issues, then the GPUs run, 40 + 30 = 70 us.
  CHECK(engine::pipelined_time(from_us(40), from_us(30), 1) == from_us(70));
  // No host stage: the GPU time as it is.
  CHECK(engine::pipelined_time(0, from_us(30), 20) == from_us(30));
  CHECK_THROWS_AS(engine::pipelined_time(from_us(40), from_us(30), 0), Error);
}

TEST_CASE("pipelined time: execute applies a plan's host issue time to its closed form") {
  engine::RunPlan p;
  p.closed_form = from_us(30);
  CHECK(engine::execute(p).time == from_us(30)); // no host stage: unchanged
  p.host_issue = from_us(40);
  p.pipeline_iters = 20;
  CHECK(engine::execute(p).time == from_us(41.5)); // 40 + 30 / 20
}

TEST_CASE("launch overlap: HIP -g N overlaps, CUDA -g N and one GPU per thread do not") {
  CHECK(model::launch_overlaps("hip/gN"));
  CHECK_FALSE(model::launch_overlaps("cuda/gN"));
  CHECK_FALSE(model::launch_overlaps("hip/g1"));
  CHECK_FALSE(model::launch_overlaps("cuda/g1"));
  CHECK(model::kNcclTestsIters == 20);
}

TEST_CASE("launch overlap: 8 MI300X driven by one thread cost max(8 launches, the bare collective) plus the fill") {
  const auto t = topology::resolve_topology("machine:gpu=mi300x");
  const auto p = hip_launch(5.0); // H = 8 x 5 = 40 us per iteration
  for (const Bytes size : {Bytes{8}, Bytes{1} << 20, Bytes{256} << 20}) {
    // The bare model's time of the same size (no launch term), T: the GPU stage.
    const double gpu = test::predict_allreduce_us(t, model::ParamSet{}, 8, size);
    const double expect = std::max(40.0, gpu) + std::min(40.0, gpu) / 20.0;
    CAPTURE(size);
    CAPTURE(gpu);
    CHECK(test::predict_allreduce_us(t, p, 8, size) == doctest::Approx(expect).epsilon(1e-6));
  }
  // At 8 B the GPU stage (RCCL's LL latency, ~23 us) is shorter: the row is the host's 40 us plus T / 20.
  CHECK(test::predict_allreduce_us(t, model::ParamSet{}, 8, 8) < 40.0);
  // At 256 MiB the collective (hundreds of us) hides the launches: T + 40 / 20 = T + 2 us.
  const double big = test::predict_allreduce_us(t, model::ParamSet{}, 8, Bytes{256} << 20);
  CHECK(test::predict_allreduce_us(t, p, 8, Bytes{256} << 20) - big == doctest::Approx(2.0).epsilon(1e-6));
}

TEST_CASE("launch overlap: CUDA -g N still adds its launches to the collective") {
  const auto t = topology::resolve_topology("hgx-a100");
  // cuda/gN 5 us per launch, 8 launches: 40 us on top of the bare model at every size.
  for (const Bytes size : {Bytes{8}, Bytes{256} << 20})
    CHECK(test::predict_allreduce_us(t, hip_launch(5.0), 8, size) - test::predict_allreduce_us(t, model::ParamSet{}, 8, size) == doctest::Approx(40.0).epsilon(1e-6));
}

namespace {
// A synthetic rccl-tests -g 8 trace of 8 MI300X predicted with `truth`, in nccl-tests' format.
std::string synthetic_hip_trace(const topology::Topology& t, const model::ParamSet& truth) {
  std::string s = "# synthetic: ccsim nccl model, 8 MI300X driven by one thread\n"
                  "# nThread 1 nGpus 8 minBytes 8 maxBytes 268435456 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
                  "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n";
  for (Bytes size = 8; size <= (Bytes{256} << 20); size *= 2) {
    const double us = test::predict_allreduce_us(t, truth, 8, size, true);
    const auto bw = metrics::bandwidths(schedule::Op::AllReduce, 8, size, from_us(us));
    s += fmt::format("{:>12} {:>12} float sum -1 {:.4f} {:.2f} {:.2f} 0 {:.4f} {:.2f} {:.2f} 0\n", size, size / 4, us, bw.algbw_GBps,
                     bw.busbw_GBps, us, bw.algbw_GBps, bw.busbw_GBps);
  }
  return s;
}
} // namespace

TEST_CASE("launch overlap: calibrate still identifies the per-GPU launch once the row is a max") {
  // The host-bound small rows carry d(time)/d(launch_per_gpu_us) = 8 (20 x 8 launches over 20
  // iterations), the GPU-bound large rows 8 / 20: the fit sees the term and recovers the 5 us it was made with.
  const auto t = topology::resolve_topology("machine:gpu=mi300x");
  model::ParamSet truth;
  truth.model = "nccl";
  truth.launch_per_gpu_us = 5.0;
  model::CalibInput in;
  in.cfg.op = schedule::Op::AllReduce;
  in.cfg.model_name = "nccl";
  in.cfg.placements = topology::pack_rings(t, {}).rings;
  in.cfg.model.semantics = engine::Semantics::mpi;
  in.label = "synthetic-mi300x-g8";
  in.trace = trace::parse_trace(synthetic_hip_trace(t, truth), in.label);
  in.topo = &t;
  for (std::size_t i = 0; i < in.trace.rows.size(); ++i) in.rows.push_back(i);
  REQUIRE(in.trace.rows.size() == 26);
  model::CalibOptions o;
  o.model = "nccl";
  const auto f = model::fit({in}, o);
  CHECK(f.params.launch_per_gpu_us == doctest::Approx(5.0).epsilon(0.02));
}

// CUDA -g N by release (issue 14, ringstep branch; launchsum branch): up to 2.12 (GROUP mode, NCCL's default up to
// v2.8.4-1, and PARALLEL mode, the default from v2.9.6-1 src/init.cc, which the SuperBench A100 runs print and
// which rise as a sum) or no release known keeps the sum; from v2.13.4-1 (NCCL's launch rewrite) the launches
// overlap as HIP's do.
TEST_CASE("launch overlap: CUDA -g N is its own kind from NCCL 2.13.4, not from 2.9.6's PARALLEL launch") {
  using model::nccl::pipelined_launch_in_release;
  CHECK_FALSE(pipelined_launch_in_release(std::nullopt));
  CHECK_FALSE(pipelined_launch_in_release(model::nccl::NcclVersion{2, 8, 4}));
  CHECK_FALSE(pipelined_launch_in_release(model::nccl::NcclVersion{2, 9, 6}));   // SuperBench's `Launch mode Parallel`
  CHECK_FALSE(pipelined_launch_in_release(model::nccl::NcclVersion{2, 12, 12})); // the last release that prints it
  CHECK(pipelined_launch_in_release(model::nccl::NcclVersion{2, 13, 4}));
  CHECK(pipelined_launch_in_release(model::nccl::NcclVersion{2, 18, 3}));
  CHECK(pipelined_launch_in_release(model::nccl::NcclVersion{2, 26, 2}));
  CHECK(model::launch_kind(false, 8, true) == "cuda/gN-parallel");
  CHECK(model::launch_kind(false, 8, false) == "cuda/gN");
  CHECK(model::launch_kind(false, 1, true) == "cuda/g1"); // one GPU per thread: one launch, nothing to add up
  CHECK(model::launch_kind(true, 8, true) == "hip/gN");   // RCCL's kinds do not split
  CHECK(model::is_launch_kind("cuda/gN-parallel"));
  CHECK(model::launch_overlaps("cuda/gN-parallel"));
  const auto h100 = topology::resolve_topology("machine:gpu=h100,gpus=8");
  const auto mi300x = topology::resolve_topology("machine:gpu=mi300x");
  CHECK(model::nccl::launch_kind_for(h100, 8, "2.26.2") == "cuda/gN-parallel");
  CHECK(model::nccl::launch_kind_for(h100, 8, "2.8.4") == "cuda/gN");
  CHECK(model::nccl::launch_kind_for(h100, 8, "2.11.4") == "cuda/gN");
  CHECK(model::nccl::launch_kind_for(h100, 8, "2.14.3") == "cuda/gN-parallel");
  CHECK(model::nccl::launch_kind_for(h100, 8, "") == "cuda/gN");
  CHECK(model::nccl::launch_kind_for(h100, 1, "2.26.2") == "cuda/g1");
  CHECK(model::nccl::launch_kind_for(mi300x, 8, "2.26.2") == "hip/gN");
}

namespace {
// One allreduce on 8 GPUs driven by one thread (-g 8) under NCCL release `release`, in us.
double predict_g8_allreduce_in_release_us(const topology::Topology& t, const model::ParamSet& p, const std::string& release, Bytes size) {
  model::ModelOptions o;
  o.params = p;
  o.gpus_per_thread = 8;
  o.nccl_version = release;
  auto b = model::make_model("nccl", t, o);
  metrics::RunConfig c = test::packed_rings_config(t);
  c.model_name = "nccl";
  return to_us(metrics::run(*b, c, metrics::plan_size(c.op, metrics::ranks_of(c), size, 4)).time);
}

model::ParamSet cuda_launch_kinds(double summed_per_gpu_us, double parallel_per_gpu_us) {
  model::ParamSet p;
  p.model = "nccl";
  p.launch_by_kind["cuda/gN"] = {0.0, summed_per_gpu_us};
  p.launch_by_kind["cuda/gN-parallel"] = {0.0, parallel_per_gpu_us};
  return p;
}
} // namespace

TEST_CASE("launch overlap: 8 H100 driven by one thread, NCCL 2.26.2 costs max(8 launches, the collective), 2.8.4 their sum") {
  const auto t = topology::resolve_topology("machine:gpu=h100,gpus=8");
  const auto p = cuda_launch_kinds(2.0, 5.0); // summed: 8 x 2 = 16 us added; parallel: H = 8 x 5 = 40 us per iteration
  for (const Bytes size : {Bytes{8}, Bytes{4} << 20, Bytes{256} << 20}) {
    CAPTURE(size);
    // The bare model's time of the same size and release (no launch term): the GPU stage T.
    const double t_2262 = predict_g8_allreduce_in_release_us(t, model::ParamSet{}, "2.26.2", size);
    const double t_284 = predict_g8_allreduce_in_release_us(t, model::ParamSet{}, "2.8.4", size);
    CHECK(predict_g8_allreduce_in_release_us(t, p, "2.26.2", size) ==
          doctest::Approx(std::max(40.0, t_2262) + std::min(40.0, t_2262) / 20.0).epsilon(1e-6));
    CHECK(predict_g8_allreduce_in_release_us(t, p, "2.8.4", size) == doctest::Approx(t_284 + 16.0).epsilon(1e-6));
  }
  // At 8 B the GPU stage is NCCL's ring/LL latency, 6.6 + 2 x 7 x 0.6 = 15.0 us (models/nccl.json baseLat, NVLink
  // hwLat): the row is the host's 40 us and 15 / 20 = 0.75 us of fill, 40.75 us, where the sum gives 16 + 15 = 31 us.
  CHECK(predict_g8_allreduce_in_release_us(t, p, "2.26.2", 8) == doctest::Approx(40.75).epsilon(1e-3));
  CHECK(predict_g8_allreduce_in_release_us(t, p, "2.8.4", 8) == doctest::Approx(31.0).epsilon(1e-3));
  // PARALLEL mode up to 2.12 (2.9.6-2.12.12): the sum, 16 + 15 = 31 us; the first release after, 2.13.4, the
  // pipeline's 40.75 us (8 B: the same ring/LL latency in both, the tables carry no per-release latency there).
  CHECK(predict_g8_allreduce_in_release_us(t, p, "2.9.6", 8) == doctest::Approx(31.0).epsilon(1e-3));
  CHECK(predict_g8_allreduce_in_release_us(t, p, "2.12.12", 8) == doctest::Approx(31.0).epsilon(1e-3));
  CHECK(predict_g8_allreduce_in_release_us(t, p, "2.13.4", 8) == doctest::Approx(40.75).epsilon(1e-3));
  // No release known: the sum.
  CHECK(predict_g8_allreduce_in_release_us(t, p, "", 8) == doctest::Approx(31.0).epsilon(1e-3));
}
