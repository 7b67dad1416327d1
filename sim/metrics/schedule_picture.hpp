// The schedule as pictures: per step, every message (who sends how much to whom, and whether the receiver
// reduces it), for drawing (explain --format html). Small p only: a step of p ranks is p arrows.
#pragma once
#include <string>
#include <vector>

#include "sim/metrics/explain.hpp"

namespace ccsim::metrics {

struct PictureMessage {
  int from = 0, to = 0;
  Bytes bytes = 0;
  std::uint64_t off = 0, len = 0; // the sender's buffer range (elements)
  bool reduces = false;           // the receiver reduces it into its buffer (else it overwrites)
};

struct SchedulePicture {
  int ranks = 0;
  std::uint64_t buffer_elems = 0; // each rank's buffer (elements), scratch included
  int total_steps = 0;            // the longest rank's step count (steps past max_steps are not drawn)
  std::vector<std::vector<PictureMessage>> steps; // [step] messages posted at that step
  std::vector<std::vector<int>> copies;           // [step] ranks that copy locally at that step
};

// Rank limit for a picture: above it, the page says why it shows none.
inline constexpr int kPictureMaxRanks = 16;

// The messages of `algo` at `size` under the setup, step by step (steps numbered per rank, as the schedule
// defines them), the first `max_steps` steps. `segment_bytes` is the pipeline segment explain chose (0: none).
SchedulePicture picture_schedule(const ExplainSetup& s, const std::string& algo, Bytes size, Bytes segment_bytes,
                                 int max_steps = 24);

} // namespace ccsim::metrics
