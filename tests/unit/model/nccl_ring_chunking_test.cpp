// NCCL's ring kernels' loops and split over channels (sim/model/nccl/ring_chunking.hpp). Every expected
// value is worked by hand from the rule in NCCL's source quoted in the header, for 8 ranks on 24 CUDA
// channels (an HGX A100: 12 search channels x 2), not read off the code under test.
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>

#include "sim/metrics/sweep.hpp"
#include "sim/model/nccl/builder.hpp"
#include "sim/model/nccl/proto_list.hpp"
#include "sim/model/nccl/ring_chunking.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using schedule::Op;
namespace nccl = model::nccl;

namespace {
constexpr Bytes MiB = Bytes{1} << 20;
const nccl::Tables& tables() { return nccl::load_tables(); }
} // namespace

TEST_CASE("A ring loop moves nRanks chunks per channel, a broadcast or reduce loop one") {
  CHECK(nccl::chunks_per_loop(Op::AllReduce, 8) == 8);
  CHECK(nccl::chunks_per_loop(Op::AllGather, 8) == 8);
  CHECK(nccl::chunks_per_loop(Op::ReduceScatter, 8) == 8);
  CHECK(nccl::chunks_per_loop(Op::Broadcast, 8) == 1);
  CHECK(nccl::chunks_per_loop(Op::Reduce, 8) == 1);
  // 16 MiB broadcast over 24 channels: 699050.7 B per channel in 512 KiB Simple chunks -> 2 loops; an
  // allreduce's 2 MiB chunks x 8 ranks per loop -> 1.
  CHECK(nccl::ring_loops(Op::Broadcast, 8, 16.0 * MiB / 24, 524288) == 2);
  CHECK(nccl::ring_loops(Op::AllReduce, 8, 16.0 * MiB / 24, 2097152) == 1);
  // 8 GiB broadcast: 357913941 B per channel / 524288 = 682.7 -> 683.
  CHECK(nccl::ring_loops(Op::Broadcast, 8, 8192.0 * MiB / 24, 524288) == 683);
}

TEST_CASE("Only LL and LL128 chains forward line by line") {
  CHECK(nccl::chain_pipelined_per_line(Op::Broadcast, nccl::Proto::LL));
  CHECK(nccl::chain_pipelined_per_line(Op::Reduce, nccl::Proto::LL128));
  CHECK_FALSE(nccl::chain_pipelined_per_line(Op::Broadcast, nccl::Proto::Simple));
  CHECK_FALSE(nccl::chain_pipelined_per_line(Op::AllGather, nccl::Proto::LL));
}

TEST_CASE("The release picks who splits the data over the channels") {
  CHECK(nccl::split_rule(std::nullopt) == nccl::SplitRule::Cells);
  CHECK(nccl::split_rule(nccl::NcclVersion{2, 30, 7}) == nccl::SplitRule::Cells);
  CHECK(nccl::split_rule(nccl::NcclVersion{2, 22, 3}) == nccl::SplitRule::Cells);
  CHECK(nccl::split_rule(nccl::NcclVersion{2, 21, 5}) == nccl::SplitRule::None);
  CHECK(nccl::split_rule(nccl::NcclVersion{2, 19, 4}) == nccl::SplitRule::KernelChunks);
  CHECK(nccl::split_rule(nccl::NcclVersion{2, 8, 4}) == nccl::SplitRule::KernelChunks);
  CHECK(nccl::split_rule(nccl::NcclVersion{2, 4, 8}) == nccl::SplitRule::None);
}

TEST_CASE("Cells of 32 KiB traffic leave the busiest channel above its even share") {
  const auto& t = tables();
  // allgather 4 MiB, LL128: count 512 KiB per rank, traffic x8 = 4 MiB, cell 32768/8 = 4096 B, 128 cells;
  // 4194304/24 = 174762 -> 174768 per channel, divUp(174768, 32768) = 6 cells: 24 x 6 x 4096 / 524288 = 1.125.
  CHECK(nccl::channel_imbalance(nccl::SplitRule::Cells, t, Op::AllGather, nccl::Proto::LL128, 8, 4 * MiB, 24, 576000) ==
        doctest::Approx(1.125));
  // allreduce 1 MiB, LL: traffic x2 x4 = 8 MiB, cell 4096 B, 256 cells; 349525 -> 349536 per channel,
  // divUp(349536, 32768) = 11 cells: 24 x 11 x 4096 / 1048576 = 1.03125.
  CHECK(nccl::channel_imbalance(nccl::SplitRule::Cells, t, Op::AllReduce, nccl::Proto::LL, 8, 1 * MiB, 24, 32768) ==
        doctest::Approx(1.03125));
  // One channel, or a release whose split was not read: even.
  CHECK(nccl::channel_imbalance(nccl::SplitRule::Cells, t, Op::AllGather, nccl::Proto::LL128, 8, 4 * MiB, 1, 576000) == 1.0);
  CHECK(nccl::channel_imbalance(nccl::SplitRule::None, t, Op::AllGather, nccl::Proto::LL128, 8, 4 * MiB, 24, 576000) == 1.0);
}

TEST_CASE("Before 2.20 the kernel's minimum chunk leaves channels idle in the last loop") {
  const auto& t = tables();
  // allgather 4 MiB, LL128, 640 threads: minimum chunk 640 x 60 / 2 = 19200 B; 524288 B per rank rounded up
  // to 24 x 19200 -> 2 x 19200 = 38400 B per channel: 14 channels full, one partial, 9 idle:
  // 24 x 38400 / 524288 = 1.7578125.
  CHECK(nccl::channel_imbalance(nccl::SplitRule::KernelChunks, t, Op::AllGather, nccl::Proto::LL128, 8, 4 * MiB, 24, 576000) ==
        doctest::Approx(1.7578125));
  // allreduce 1 MiB, LL, 512 threads: minimum 4096 B, 1048576 / (24 x 8) = 5461.3 -> 8192 B per chunk, 128
  // chunks of data. LL deals chunk c of channel bid to slot c x 24 + bid, so channel 0 holds slots 0, 24, ..., 120
  // (6 full; 144 and 168 lie past the end): 24 x 6 x 8192 / 1048576 = 1.125.
  CHECK(nccl::channel_imbalance(nccl::SplitRule::KernelChunks, t, Op::AllReduce, nccl::Proto::LL, 8, 1 * MiB, 24, 32768) ==
        doctest::Approx(1.125));
  // The same allreduce on Simple (512 threads, minimum 4096 B, the same 8192 B chunk) gives channel 0 its 8 chunks
  // side by side, 65536 B: 24 x 65536 / 1048576 = 1.5.
  CHECK(nccl::channel_imbalance(nccl::SplitRule::KernelChunks, t, Op::AllReduce, nccl::Proto::Simple, 8, 1 * MiB, 24, 2097152) ==
        doctest::Approx(1.5));
  // allreduce 8 MiB, LL128, 640 threads: 8388608 / 192 = 43690.7 -> 57600 B (3 x 19200); 145.6 slots, channel 0
  // holds slots 0, 24, ..., 168: 0-144 full (slot 144 starts at 8294400, 94208 B before the end), 168 past it:
  // 24 x 7 x 57600 / 8388608 = 1.153564453125 (side by side it would be 8 x 57600: 1.318).
  CHECK(nccl::channel_imbalance(nccl::SplitRule::KernelChunks, t, Op::AllReduce, nccl::Proto::LL128, 8, 8 * MiB, 24, 576000) ==
        doctest::Approx(1.153564453125));
  // A part-filled slot: allreduce 100000 B, LL on 2 channels (512 threads still: they halve only on 1), 100000 / 16
  // = 6250 -> 8192 B; slots 0-11 full, slot 12 holds 100000 - 12 x 8192 = 1696 B; channel 0 has slots 0, 2, ..., 14:
  // 6 x 8192 + 1696 = 50848 B, x 2 / 100000 = 1.01696.
  CHECK(nccl::channel_imbalance(nccl::SplitRule::KernelChunks, t, Op::AllReduce, nccl::Proto::LL, 8, 100000, 2, 32768) ==
        doctest::Approx(1.01696));
  // allgather moves one chunk a channel a loop on every protocol: LL 1 MiB, 131072 B a rank / 24 = 5461.3 -> 8192 B
  // on channel 0: 24 x 8192 / 131072 = 1.5.
  CHECK(nccl::channel_imbalance(nccl::SplitRule::KernelChunks, t, Op::AllGather, nccl::Proto::LL, 8, 1 * MiB, 24, 32768) ==
        doctest::Approx(1.5));
  // broadcast 16 MiB, Simple: one full loop of 24 x 512 KiB, then 4 MiB / 24 = 174762.7 -> 176128 B (4 KiB
  // aligned): the busiest channel 524288 + 176128 = 700416 B, x 24 / 16777216 = 1.001953125.
  CHECK(nccl::channel_imbalance(nccl::SplitRule::KernelChunks, t, Op::Broadcast, nccl::Proto::Simple, 8, 16 * MiB, 24, 524288) ==
        doctest::Approx(1.001953125));
}

TEST_CASE("A broadcast replays NCCL's one-chunk loops, LL chains at the finest pipelining") {
  const auto t = topology::resolve_topology("hgx-a100");
  nccl::Builder b(t, {});
  auto cfg = test::packed_rings_config(t, Op::Broadcast);
  const auto simple = metrics::run(b, cfg, metrics::plan_size(Op::Broadcast, 8, 16 * MiB, 4));
  REQUIRE(simple.choice.proto == "Simple");
  CHECK(simple.choice.channels == 24);
  CHECK(simple.choice.loops == 2); // 699050.7 B per channel / 512 KiB
  const auto ll = metrics::run(b, cfg, metrics::plan_size(Op::Broadcast, 8, 64 * 1024, 4));
  REQUIRE(ll.choice.proto == "LL");
  CHECK(ll.choice.loops == nccl::load_tables().max_loops_simulated); // one ring on the NVSwitch box
}

TEST_CASE("An allgather under NCCL 2.8 runs its idle channels' share on the busy ones") {
  // 4 MiB allgather on a DGX-1 (8 V100), ring/LL128 on 12 channels: 2.30's cells give the busiest channel 11 cells
  // of 4096 B (12 x 45056 / 524288 = 1.031 x), 2.8's kernel 3 x 19200 = 57600 B on 9.1 of them (1.318 x), so the
  // release named slows the replay where nothing else differs. (On 8 A100 both come to one LL128 wave a channel,
  // 1.758 x: "Only an A100's LL128 ring pays for part-filled waves".)
  const auto t = topology::resolve_topology("dgx1-v100");
  nccl::Options old_release;
  old_release.nccl_version = "2.8.4";
  nccl::Builder b28(t, old_release), b230(t, {});
  const auto cfg = test::packed_rings_config(t, Op::AllGather);
  const auto size = metrics::plan_size(Op::AllGather, 8, 4 * MiB, 4);
  const auto r28 = metrics::run(b28, cfg, size), r230 = metrics::run(b230, cfg, size);
  REQUIRE(r28.choice.proto == "LL128");
  REQUIRE(r230.choice.proto == "LL128");
  CHECK(r28.choice.channels == r230.choice.channels);
  CHECK(to_us(r28.time) > to_us(r230.time) * 1.05);
}

TEST_CASE("An LL128 step lasts whole waves of the block's warps") {
  const auto& t = tables();
  const auto kc = nccl::SplitRule::KernelChunks, cells = nccl::SplitRule::Cells;
  // A wave: 20 warps x 1920 B = 38400 B. Before 2.20, allreduce 8 MiB on 8 ranks x 24 channels: chunk
  // 43690.7 B rounded up to the 19200 B minimum -> 57600 B (1.5 waves -> 2); chunks are dealt chunk x 24 + bid,
  // 8388608 / 57600 = 145.6 slots, so channel 0 carries slots 0, 24, ..., 144: 7 chunks x 2 waves;
  // 24 x 14 x 38400 / 8388608 = 1.5380859375.
  CHECK(nccl::ll128_wave_imbalance(kc, t, Op::AllReduce, 8, 8 * MiB, 24, 576000) == doctest::Approx(1.5380859375));
  // 4 MiB: chunk 21845.3 -> 38400 B (one wave); 109.2 slots, channel 0 has 5: 24 x 5 x 38400 / 4194304.
  CHECK(nccl::ll128_wave_imbalance(kc, t, Op::AllReduce, 8, 4 * MiB, 24, 576000) == doctest::Approx(1.0986328125));
  // allgather 8 MiB: 1048576 B a rank, 43690.7 -> 57600 B on channel 0 (2 waves): 24 x 2 x 38400 / 1048576.
  CHECK(nccl::ll128_wave_imbalance(kc, t, Op::AllGather, 8, 8 * MiB, 24, 576000) == doctest::Approx(1.7578125));
  // From 2.22, cells: allreduce 8 MiB, 22 cells of 16384 B on the busiest channel = 360448 B, 45056 B a step
  // (1.17 waves -> 2), 8 steps: 24 x 16 x 38400 / 8388608 = 1.7578125; 16 MiB: 43 cells = 704512 B, 88064 B a
  // step (2.29 -> 3): 24 x 24 x 38400 / 16777216 = 1.318359375; 32 MiB: 86 cells, 176128 B a step (4.59 -> 5):
  // 24 x 40 x 38400 / 33554432 = 1.0986328125.
  CHECK(nccl::ll128_wave_imbalance(cells, t, Op::AllReduce, 8, 8 * MiB, 24, 576000) == doctest::Approx(1.7578125));
  CHECK(nccl::ll128_wave_imbalance(cells, t, Op::AllReduce, 8, 16 * MiB, 24, 576000) == doctest::Approx(1.318359375));
  CHECK(nccl::ll128_wave_imbalance(cells, t, Op::AllReduce, 8, 32 * MiB, 24, 576000) == doctest::Approx(1.0986328125));
  // Full chunks are whole waves (576000 B = 15): allreduce 1 GiB before 2.20 stays at its channel split.
  CHECK(nccl::ll128_wave_imbalance(kc, t, Op::AllReduce, 8, 1024 * MiB, 24, 576000) ==
        doctest::Approx(nccl::channel_imbalance(kc, t, Op::AllReduce, nccl::Proto::LL128, 8, 1024 * MiB, 24, 576000))
            .epsilon(0.01));
  // A broadcast keeps its channel split: its chain forwards line by line.
  CHECK(nccl::ll128_wave_imbalance(cells, t, Op::Broadcast, 8, 8 * MiB, 24, 576000) ==
        nccl::channel_imbalance(cells, t, Op::Broadcast, nccl::Proto::LL128, 8, 8 * MiB, 24, 576000));
}

TEST_CASE("Only an A100's LL128 ring pays for part-filled waves") {
  // 8 MiB allreduce, ring/LL128 on both boxes. On 8 A100 the busiest channel's steps come to 1.758 x the even
  // share (cells: 2 waves for 1.17), on 8 H100 the channel split alone (sm90 runs no wave charge).
  const auto a100 = topology::resolve_topology("hgx-a100");
  nccl::Builder ba(a100, {});
  const auto cfg = test::packed_rings_config(a100, Op::AllReduce);
  const auto size = metrics::plan_size(Op::AllReduce, 8, 8 * MiB, 4);
  const auto r = metrics::run(ba, cfg, size);
  REQUIRE(r.choice.proto == "LL128");
  REQUIRE(r.choice.channels == 24);
  // NCCL's own figure for this size is 10.0 + 14 x 1.9 us + 8388608 B x 14/8 / 216.2 GB/s = 104.5 us; with the
  // data's 67.9 us taking 1.758 x, over 150 us (the replay adds its launch and hop terms on top).
  CHECK(to_us(r.time) > 150.0);
}

TEST_CASE("An H100's LL128 ring keeps its channel split: no wave charge on sm90") {
  // Mutation pass 4 (scripts/MUTANTS.md): the wave charge is sm80's only (builder.cpp, models/README.md "LL128 waves
  // on A100"). 8 H100 on NVSwitch: 12 search channels x 30 GB/s = 360 GB/s, LL128 busbw min(0.92 x 360, 24 x 36.7)
  // = 331.2 GB/s, algbw 331.2 x 8/14 = 189.3 GB/s: the 8 MiB data term is 8388608 / 189.3e3 = 44.3 us. From 2.22 the
  // channels split 512 cells of 16 KiB, 22 on the busiest of 24 channels: 1.031 x the even share (+1.4 us). With
  // NCCL's latency (14 hops x 1.9 us and the base) and ccsim's launch, the replay stays under 100 us; the A100's
  // charge (2 waves for 1.17, 1.758 x) would add 0.72 x 44.3 = 32 us on top.
  const auto h100 = topology::resolve_topology("hgx-h100");
  nccl::Options o;
  o.mode = nccl::AlgoMode::Ring;
  o.protos = nccl::proto_set_from("LL128", "NCCL_PROTO");
  nccl::Builder bh(h100, o);
  const auto cfg = test::packed_rings_config(h100, Op::AllReduce);
  const auto r = metrics::run(bh, cfg, metrics::plan_size(Op::AllReduce, 8, 8 * MiB, 4));
  REQUIRE(r.choice.proto == "LL128");
  REQUIRE(r.choice.channels == 24);
  CHECK(to_us(r.time) < 100.0);
}
