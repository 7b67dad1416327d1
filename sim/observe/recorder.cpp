#include "sim/observe/recorder.hpp"

namespace ccsim::observe {

Recorder::Recorder(std::size_t channels, std::size_t max_transfers) : last_on_channel_(channels, -1), max_(max_transfers) {}

void Recorder::on_transfer(const engine::TransferRecord& t) {
  if (rec_.truncated) return;
  if (rec_.transfers.size() >= max_) {
    rec_.truncated = true;
    return;
  }
  const auto id = static_cast<std::int64_t>(rec_.transfers.size());
  if (!t.route.empty() && t.hops.size() != t.route.size()) rec_.occupancy_known = false;
  Transfer x{t.job, t.src, t.dst, t.step, t.bytes, t.off, t.post, t.start, t.arrive,
             static_cast<std::uint32_t>(rec_.hops.size()), 0};
  if (t.hops.size() == t.route.size()) {
    for (std::size_t k = 0; k < t.route.size(); ++k) {
      const ChannelId c = t.route[k];
      rec_.hops.push_back({c, t.hops[k], last_on_channel_[c]});
      last_on_channel_[c] = id;
    }
    x.hop_count = static_cast<std::uint32_t>(t.route.size());
  }
  rec_.transfers.push_back(x);
}

void Recorder::on_step(int job, int rank, int step, Time begin, Time end) {
  if (!rec_.truncated) rec_.steps.push_back({job, rank, step, begin, end});
}

void Recorder::on_reduce(int job, int rank, int step, Time begin, Time end, Bytes bytes) {
  if (!rec_.truncated) rec_.reduces.push_back({job, rank, step, begin, end, bytes});
}

} // namespace ccsim::observe
