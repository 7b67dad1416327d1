// How much of a network hop one step of a multi-node ring exposes (tuning.hpp ring_net_hop_share;
// models/README.md "The network hop on every lockstep step"). Worked by hand:
//  * 2 nodes x 8 GPUs, allreduce: 2 x 15 = 30 steps. The data chain crosses the network 30 x 2 / 16 = 3.75 times,
//    the credit loop (NCCL_STEPS = 8 slots, LL one slot per step) 2 x floor(29 / 8) + 1 = 7 times: 7/30 a step.
//    Simple's step is 4 slots, a window of 2: 2 x floor(29 / 2) + 1 = 29: 29/30.
//  * 2 nodes x 4 GPUs, allgather: 7 steps, inside one window: the chain's 2/8 = 1/4 binds.
//  * 2 ranks on 2 nodes: every step crosses: 1. One node, broadcast: 1 (the lockstep charge stays).
//  * the time: 2 HGX H100 nodes over InfiniBand, ring/LL allreduce of 4 KiB. Raising NCCL's NET ring/LL hop by
//    10 us (a tables copy) adds 10 us to each of the 7 exposed hops: +70 us, where a hop on every step of
//    the lockstep replay would add 30 x 10 = 300 us.
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/model/nccl/proto_list.hpp"
#include "sim/model/nccl/tuning.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
namespace nccl = model::nccl;
using schedule::Op;

TEST_CASE("ring_net_hop_share: the data chain's or the credit loop's share of a network hop per ring step") {
  CHECK(nccl::ring_net_hop_share(Op::AllReduce, 16, 2, 1) == doctest::Approx(7.0 / 30));
  CHECK(nccl::ring_net_hop_share(Op::AllReduce, 16, 2, 4) == doctest::Approx(29.0 / 30));
  CHECK(nccl::ring_net_hop_share(Op::AllGather, 8, 2, 1) == doctest::Approx(0.25));
  CHECK(nccl::ring_net_hop_share(Op::ReduceScatter, 64, 8, 1) == doctest::Approx(15.0 / 63)); // 2 x 7 + 1 over 63 steps
  CHECK(nccl::ring_net_hop_share(Op::AllReduce, 2, 2, 1) == doctest::Approx(1.0));
  CHECK(nccl::ring_net_hop_share(Op::AllReduce, 8, 1, 1) == doctest::Approx(1.0));
  CHECK(nccl::ring_net_hop_share(Op::Broadcast, 16, 2, 1) == doctest::Approx(1.0));
}

TEST_CASE("Two HGX H100 nodes, ring/LL allreduce: a 10 us slower network hop costs 7 hops, not 30") {
  const auto t = topology::resolve_topology("cluster:nodes=2,node=hgx-h100,nics=8x400G,kind=ib");
  const std::string path = "/tmp/ccsim-net-hop-share-" + std::to_string(::getpid()) + ".json";
  auto j = nlohmann::json::parse(std::ifstream(nccl::default_tables_path()));
  j["hw_latency_us"]["net"]["ring"]["LL"] = j["hw_latency_us"]["net"]["ring"]["LL"].get<double>() + 10.0;
  std::ofstream(path) << j.dump();
  auto time_us = [&](const std::string& tables) {
    nccl::Options o;
    o.tables = tables;
    o.params = model::ParamSet{};
    o.mode = nccl::AlgoMode::Ring;
    o.protos = nccl::proto_set_from("LL");
    nccl::Builder b(t, o);
    const auto row = metrics::run(b, test::packed_rings_config(t), metrics::plan_size(Op::AllReduce, 16, 4096, 4));
    CHECK(row.choice.algo == "ring");
    CHECK(row.choice.proto == "LL");
    return to_us(row.time);
  };
  const double slower = time_us(path), shipped = time_us("");
  std::remove(path.c_str());
  CHECK(slower - shipped == doctest::Approx(7 * 10.0).epsilon(1e-3));
}
