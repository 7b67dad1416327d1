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
  // A model event the model scheduled through the sink fired; returns tokens that arrived now.
  virtual void on_model_event(Time now, std::uint32_t a, std::uint32_t b, ArrivalSink& sink,
                              std::vector<std::uint64_t>& arrived) {
    (void)now, (void)a, (void)b, (void)sink, (void)arrived;
  }
  virtual const ChannelStats& stats() const = 0;
  // Start time of the last posted transfer's first byte (for observers); equals `now` when uncontended.
  virtual Time last_start() const = 0;
  // For observers, right after post(): when each channel of `route` holds the message just posted, one
  // entry per channel. Models that share links fluidly (no exclusive holding) leave `out` empty.
  virtual void last_occupancy(std::span<const ChannelId> route, Bytes bytes, std::vector<Occupancy>& out) const {
    (void)route, (void)bytes;
    out.clear();
  }
};

struct ModelParams {
  Time alpha_sw = 0;              // software start-up cost added to every message (on top of link latency)
  Bandwidth reduce_bw = 0;        // bytes/s a GPU reduces at; 0 = reductions are free (gamma = 0)
  Bytes header_bytes = 0;         // added to every message on the wire (SimGrid SMPI sends a 16-byte envelope)
  bool eager = false;             // sends start at once (default: when the matching receive is posted)
};

// One network model the engine can be given: its name, a one-line description, and its factory.
struct NetworkEntry {
  std::string_view name, description;
  std::unique_ptr<NetworkModel> (*make)(Time alpha_sw);
};
std::span<const NetworkEntry> network_entries(); // fifo first (the default)
const NetworkEntry& fifo_network();
const NetworkEntry* find_network(std::string_view name); // nullptr when unknown
std::unique_ptr<NetworkModel> make_flow_network(Time alpha_sw); // --model flow (flow_network.cpp)

} // namespace ccsim::engine
