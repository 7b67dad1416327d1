// --timeline / --links / --timeline-size for the main command: record one size of the sweep in full,
// then write its Chrome trace and add the link report to the output.
#pragma once
#include <functional>
#include <memory>
#include <span>
#include <optional>
#include <string>
#include <vector>

#include "sim/cli/run_options.hpp"
#include "sim/observe/link_report.hpp"
#include "sim/observe/recorder.hpp"

namespace ccsim::cli {

class Inspector {
 public:
  // At most this many transfers are recorded (about 100 B each, and a few hundred B of trace each).
  static constexpr std::size_t kMaxRecorded = 250'000;

  // Validates the flags (throws Error naming the flag); inactive when neither --timeline nor --links.
  Inspector(const RunOptions& o, const topology::Topology& topo, const metrics::RunConfig& cfg, const std::vector<Bytes>& sizes,
            report::Format fmt);
  bool active() const { return active_; }
  // Observers to attach while simulating `size` (none unless it is the inspected size).
  std::vector<engine::Observer*> observers(Bytes size);
  void saw(Bytes size, const metrics::Row& row);
  // After the sweep: predicts the inspected size if the sweep did not include it, writes --timeline.
  using Predict = std::function<metrics::Row(Bytes, std::span<engine::Observer* const>)>;
  void finish(const Predict& predict);
  // The sweep's output with the link report added (after the table, or under "links" in JSON).
  std::string decorate(const std::string& output) const;

 private:
  const RunOptions& o_;
  const topology::Topology& topo_;
  const metrics::RunConfig& cfg_;
  report::Format fmt_;
  bool active_ = false;
  Bytes size_ = 0;
  std::unique_ptr<observe::Recorder> rec_;
  std::optional<metrics::Row> row_;
  std::optional<observe::LinkReport> report_;
};

} // namespace ccsim::cli
