// How a transfer's bytes cross the links of its route. The engine owns ranks and steps; a network
// model owns link state and decides arrival times. The engine is handed its model as an object; the
// table of network models (network_entries) is where names meet factories.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/topology/topology.hpp"

namespace ccsim::engine {

using topology::ChannelId;

// Per directed channel: what it carried and for how long it was busy.
struct ChannelStats {
  std::vector<Bytes> bytes;
  std::vector<Time> busy;
};

// When a directed channel carried one message (observers draw link tracks and find queueing from it).
struct Occupancy {
  Time begin = 0, end = 0;
};

// Lets a model report arrivals that it only knows later (flow models re-plan on every change).
class ArrivalSink {
 public:
  virtual ~ArrivalSink() = default;
  virtual void schedule_model_event(Time at, std::uint32_t a, std::uint32_t b) = 0;
};

class NetworkModel {
 public:
  virtual ~NetworkModel() = default;
  virtual std::string name() const = 0;
  virtual void reset(const topology::Topology& t) = 0;
  // A transfer identified by `token` is posted at `now`. Returns its arrival time, or kNever when the
  // model will deliver it later through on_model_event.
  virtual Time post(std::uint64_t token, std::span<const ChannelId> route, Bytes bytes, Time now, ArrivalSink& sink) = 0;
  // A model event the model scheduled through the sink fired; returns tokens that arrived now, and
  // tokens whose last byte left the sender now (only for transfers whose post() left last_left() kNever).
  virtual void on_model_event(Time now, std::uint32_t a, std::uint32_t b, ArrivalSink& sink,
                              std::vector<std::uint64_t>& arrived, std::vector<std::uint64_t>& left) {
    (void)now, (void)a, (void)b, (void)sink, (void)arrived, (void)left;
  }
  virtual const ChannelStats& stats() const = 0;
  // The run is over: the same as stats(), which the model may move out (its state is reset before reuse).
  virtual ChannelStats take_stats() { return stats(); }
  // Start time of the last posted transfer's first byte (for observers); equals `now` when uncontended.
  virtual Time last_start() const = 0;
  // When the last posted transfer's last byte has left its sender (the send is complete for the GPU
  // that posted it), or kNever when the model reports that later through on_model_event's `left`.
  virtual Time last_left() const = 0;
  // For observers, right after post(): when each channel of `route` holds the message just posted, one
  // entry per channel. Models that share links fluidly (no exclusive holding) leave `out` empty.
  virtual void last_occupancy(std::span<const ChannelId> route, Bytes bytes, std::vector<Occupancy>& out) const {
    (void)route, (void)bytes;
    out.clear();
  }
};

// When a rank may move on to its next step (README "Step semantics").
//  gpu: a send is complete for its sender once its data has left (credits permitting, see `credits`);
//       a step waits for its receives and for its own sends to have left. What NCCL's kernels do.
//  mpi: a step waits until its sends have arrived and its receives are in, and a transfer starts only
//       when its receive is posted (blocking sendrecv with rendezvous): what SimGrid SMPI computes.
enum class Semantics : std::uint8_t { gpu, mpi };
Semantics semantics_from(const std::string& name, const char* flag); // "gpu" | "mpi", else fail(flag: ...)
const char* to_string(Semantics s);

struct ModelParams {
  Semantics semantics = Semantics::gpu;
  // gpu semantics: a sender may run this many messages ahead of the receives its receiver has posted
  // on the same connection. NCCL has NCCL_STEPS = 8 buffer slots per connection; with the LL protocols
  // (small messages, where credits can bind) one step takes one slot. (Simple's ring chunk takes
  // CHUNKSTEPS = 4 slots, but there the transfer time, not the window, sets the pace.)
  std::uint32_t credits = 8;
  Time alpha_sw = 0;              // software latency added to every message (on top of link latency; overlaps)
  Time overhead = 0;              // LogP's o: time a rank is busy posting each send or receive (serialises)
  Bandwidth reduce_bw = 0;        // bytes/s a GPU reduces at; 0 = reductions are free (gamma = 0)
  Bytes header_bytes = 0;         // added to every message on the wire (SimGrid SMPI sends a 16-byte envelope)
  bool eager = false;             // sends start at once (default: when the matching receive is posted)
  // RunResult::channels is filled (link reports read it); `ccsim bench` reads none and skips the copy, a fresh
  // 16 bytes per channel: at 64k ranks 2 MB of pages the kernel zeroes (scripts/BENCHMARKS.md, lgsfast).
  bool channel_totals = true;
};

// One network model the engine can be given: its name, a one-line description, and its factory.
// `semantics` matters to flow only: under gpu its bytes flow first and the latency follows, so the
// sender learns when its data has left; under mpi the latency comes first, as in SimGrid.
struct NetworkEntry {
  std::string_view name, description;
  std::unique_ptr<NetworkModel> (*make)(const ModelParams& params);
};
std::span<const NetworkEntry> network_entries(); // fifo first (the default)
const NetworkEntry& fifo_network();
const NetworkEntry* find_network(std::string_view name); // nullptr when unknown
std::unique_ptr<NetworkModel> make_flow_network(Time alpha_sw, bool latency_last); // --model flow (flow_network.cpp)

} // namespace ccsim::engine
