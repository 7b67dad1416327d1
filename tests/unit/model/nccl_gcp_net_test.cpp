// Google Cloud's GPU networks (models/README.md "Google's GPU networks"), worked by hand from Google's pages:
//  * kind=gib, tcpx and tcpxo are link types of their own (before: read as roce and ethernet).
//  * instance=<machine type> gives the kind and the NICs of Google's "Networking and GPU machines" page:
//    a3-megagpu-8g 8 x 200 Gb/s tcpxo, a3-highgpu-8g 4 x 200 Gb/s tcpx (one NIC per two GPUs), a4x-highgpu-4g
//    one 400 Gb/s ConnectX-7 per GPU over gib.
//  * TCP/IPv4 at Google's 8244 B GPU-VPC MTU: 52 B of IPv4 + TCP (with timestamps) headers leave 8192 B of payload,
//    and Ethernet adds 38 B on the wire (MAC 14, FCS 4, preamble/SFD 8, gap 12): 8192 / 8282 of the line against
//    InfiniBand's 4096 / 4122, so a 200 Gb/s (25 GB/s) tcpx link replays at 25 x 8244 / 8282 = 24.885 GB/s.
//  * Google's NCCL profiles: TCPX runs NCCL_ALGO=Ring, NCCL_PROTO=Simple, 8 channels; gIB's set_nccl_env.sh sets
//    none of these. TCPXO's changed with the NCCL its plugin shipped (container-engine-accelerators
//    gpudirect-tcpxo/README.md, the release notes' "NCCL configs"): NCCL 2.21.5 (v1.0.1-v1.0.7, 2024) NCCL_ALGO=Ring,Tree,
//    NCCL_PROTO=Simple, NCCL_NVLS_ENABLE=0; NCCL 2.23 (v1.0.9-1 and v1.0.11, 2025-05/06) the same with
//    NCCL_PROTO=Simple,LL128; NCCL 2.26.5 and 2.28.7 (v1.0.12-v1.0.15, 2025-08 on) NCCL_PROTO=Simple,LL128 alone, no
//    NCCL_ALGO and NVLS on. A release not given runs the newest.
#include <doctest/doctest.h>

#include <array>
#include <string>
#include <tuple>
#include <utility>

#include "sim/core/error.hpp"
#include "nccl_run_config.hpp"
#include "sim/metrics/sweep.hpp"
#include "sim/model/nccl/tables.hpp"
#include "sim/model/params.hpp"
#include "sim/model/registry.hpp"
#include "sim/topology/generators.hpp"

using namespace ccsim;
namespace nccl = model::nccl;
using topology::LinkType;

namespace {
// Network links of type `type` and the bandwidth of the first (bytes/s).
std::pair<int, double> links_of(const topology::Topology& t, LinkType type) {
  int n = 0;
  double bw = 0;
  for (const auto& l : t.links)
    if (l.type == type) {
      if (n++ == 0) bw = static_cast<double>(l.bw);
    }
  return {n, bw};
}
} // namespace

TEST_CASE("GCP networks: gib, tcpx and tcpxo are link types of their own") {
  for (const auto& [word, type] : {std::pair{"gib", LinkType::Gib}, {"tcpx", LinkType::Tcpx}, {"TCPXO", LinkType::Tcpxo}}) {
    const auto t = topology::generate_from_spec(std::string("machine:gpu=h100,gpus=1,nodes=2,nics=1x200G,kind=") + word);
    CHECK(links_of(t, type).first == 2); // one NIC per node, one link each to the switch
    CHECK(links_of(t, LinkType::Roce).first == 0);
    CHECK(links_of(t, LinkType::Ethernet).first == 0);
  }
}

TEST_CASE("GCP networks: a machine type gives its fabric and its NICs") {
  auto t = topology::generate_from_spec("machine:gpu=h100,nodes=2,instance=a3-megagpu-8g");
  CHECK(links_of(t, LinkType::Tcpxo) == std::pair{16, 25e9}); // 2 nodes x 8 x 200 Gb/s
  CHECK(t.instance == "a3-megagpu-8g");
  t = topology::generate_from_spec("machine:gpu=h100,nodes=2,instance=A3-HighGPU-8G");
  CHECK(links_of(t, LinkType::Tcpx) == std::pair{8, 25e9}); // 2 nodes x 4 x 200 Gb/s
  t = topology::generate_from_spec("machine:gpu=gb200,gpus=4,nodes=3,instance=a4x-highgpu-4g");
  CHECK(links_of(t, LinkType::Gib) == std::pair{12, 50e9}); // 3 nodes x 4 x 400 Gb/s
  t = topology::generate_from_spec("machine:gpu=h200,nodes=2,instance=a3-ultragpu-8g,nics=1x400G");
  CHECK(links_of(t, LinkType::Gib) == std::pair{2, 50e9}); // nics= given wins
}

TEST_CASE("GCP networks: a machine type's words that contradict it are refused") {
  for (const std::string spec : {"machine:gpu=h100,nodes=2,instance=a3-megagpu-8g,kind=gib",
                                 "machine:gpu=b200,nodes=2,instance=a3-megagpu-8g",
                                 "machine:gpu=h100,nodes=2,instance=a3-megagpu-4g",
                                 "machine:gpu=h100,gpus=3,nodes=2,instance=a3-highgpu-8g"}) {
    try {
      (void)topology::generate_from_spec(spec);
      FAIL("accepted " << spec);
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("instance") != std::string::npos);
    }
  }
}

TEST_CASE("GCP networks: TCPX and TCPXO replay TCP's framing at Google's 8244 B MTU, gIB RoCE's") {
  const auto& tab = nccl::load_tables();
  for (const auto& [word, type, want] : {std::tuple{"tcpx", LinkType::Tcpx, 25.0 * 8244 / 8282},
                                         {"tcpxo", LinkType::Tcpxo, 25.0 * 8244 / 8282},
                                         {"gib", LinkType::Gib, 25.0 * 4122 / 4178}}) {
    const auto t = topology::generate_from_spec(std::string("machine:gpu=h100,gpus=1,nodes=2,nics=1x200G,kind=") + word);
    for (const auto& l : t.links)
      if (l.type == type) CHECK(tab.replay_lane_GBps(t, l) == doctest::Approx(want).epsilon(1e-4));
  }
}

TEST_CASE("GCP networks: Google's NCCL profiles per fabric") {
  const auto& tab = nccl::load_tables();
  const auto env_of = [&](const char* kind) {
    return tab.net_env(topology::generate_from_spec(std::string("machine:gpu=h100,nodes=2,nics=8x200G,kind=") + kind));
  };
  const auto* tcpx = env_of("tcpx");
  REQUIRE(tcpx != nullptr);
  CHECK(tcpx->algo == "Ring");
  CHECK(tcpx->proto == "Simple");
  CHECK(tcpx->channels == 8);
  CHECK_FALSE(tcpx->nvls_off);
  CHECK(env_of("gib") == nullptr);
  CHECK(env_of("ib") == nullptr);
  CHECK(tab.net_env(topology::generate_from_spec("machine:gpu=h100")) == nullptr); // one node: no network
}

// Mutation pass 4 (scripts/MUTANTS.md): the profile is what NCCL reads from the environment Google's script exports;
// a flag the user typed is the user's own NCCL_ALGO / NCCL_MIN_NCHANNELS, which NCCL reads the same way, so it wins.
TEST_CASE("GCP networks: a machine type's NICs follow the node's GPUs, and the command line wins over the profile") {
  // A3 High: 4 NICs by 8 GPUs, one per two (cloud_machines.hpp). A node of 4 of its H100s: 2 NICs; A3 Mega's one per
  // GPU: 2 NICs on a node of 2.
  auto t = topology::generate_from_spec("machine:gpu=h100,gpus=4,nodes=2,instance=a3-highgpu-8g");
  CHECK(links_of(t, LinkType::Tcpx) == std::pair{4, 25e9}); // 2 nodes x 2 x 200 Gb/s
  t = topology::generate_from_spec("machine:gpu=h100,gpus=2,nodes=3,instance=a3-megagpu-8g");
  CHECK(links_of(t, LinkType::Tcpxo) == std::pair{6, 25e9}); // 3 nodes x 2
  // gIB is RoCEv2 (Google's "GPUDirect RDMA" page): a fitted "rdma" efficiency applies; TCPX/TCPXO are TCP: none.
  CHECK(model::link_family(LinkType::Gib) == "rdma");
  CHECK_FALSE(model::link_family(LinkType::Tcpx).has_value());
  CHECK_FALSE(model::link_family(LinkType::Tcpxo).has_value());

  const auto high = topology::generate_from_spec("machine:gpu=h100,nodes=2,instance=a3-highgpu-8g");
  const auto row_of = [&](const model::ModelOptions& o) {
    auto b = model::make_model("nccl", high, o);
    metrics::RunConfig c = test::packed_rings_config(high, schedule::Op::AllReduce);
    c.model_name = "nccl";
    return metrics::run(*b, c, metrics::plan_size(c.op, metrics::ranks_of(c), Bytes{1} << 30, 4));
  };
  model::ModelOptions o;
  auto r = row_of(o); // the TCPX profile: NCCL_ALGO=Ring, NCCL_PROTO=Simple, 8 channels
  CHECK(r.choice.algo == "ring");
  CHECK(r.choice.proto == "Simple");
  CHECK(r.choice.channels == 8);
  o.nccl_algo = "tree"; // --nccl-algo tree: the user's NCCL_ALGO, not the profile's Ring
  CHECK(row_of(o).choice.algo == "tree");
  o.nccl_algo = "auto";
  o.nccl_channels = 4; // a log's "4 coll channels": not the profile's 8
  CHECK(row_of(o).choice.channels == 4);
}

TEST_CASE("GCP networks: TCPXO runs the profile Google shipped with the NCCL release modelled") {
  const auto& tab = nccl::load_tables();
  const auto mega = topology::generate_from_spec("machine:gpu=h100,nodes=2,instance=a3-megagpu-8g");
  struct Want {
    std::array<int, 3> release;
    const char* algo;
    const char* proto;
    bool nvls_off;
  };
  for (const auto& w : {Want{{2, 21, 5}, "Ring,Tree", "Simple", true},   // v1.0.3's profile (the A3 Mega holdout's)
                        Want{{2, 22, 3}, "Ring,Tree", "Simple", true},   // no Google release of its own: the span before 2.23
                        Want{{2, 23, 0}, "Ring,Tree", "Simple,LL128", true}, // the span's first release (--nccl-version 2.23)
                        Want{{2, 23, 4}, "Ring,Tree", "Simple,LL128", true}, // v1.0.9-1 / v1.0.11: LL128 the default
                        Want{{2, 26, 5}, "", "Simple,LL128", false},     // v1.0.12: NVLSTree in, NCCL_ALGO out
                        Want{{2, 28, 7}, "", "Simple,LL128", false},     // v1.0.14, v1.0.15
                        Want{{0, 0, 0}, "", "Simple,LL128", false}}) {   // no release given: the newest
    CAPTURE(w.release[1]);
    const auto* env = tab.net_env(mega, w.release);
    REQUIRE(env != nullptr);
    CHECK(env->algo == w.algo);
    CHECK(env->proto == w.proto);
    CHECK(env->nvls_off == w.nvls_off);
    CHECK(env->channels == 0);
  }
  // TCPX's one profile holds for every release.
  const auto high = topology::generate_from_spec("machine:gpu=h100,nodes=2,instance=a3-highgpu-8g");
  for (const auto release : {std::array<int, 3>{2, 18, 1}, {2, 28, 7}, {0, 0, 0}}) {
    const auto* env = tab.net_env(high, release);
    REQUIRE(env != nullptr);
    CHECK(env->algo == "Ring");
    CHECK(env->channels == 8);
  }
}
