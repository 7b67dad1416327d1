#include "sim/model/compare.hpp"

#include <algorithm>


namespace ccsim::model {
namespace {

BoundKind bound_kind(topology::LinkType t) {
  if (topology::is_network(t)) return BoundKind::Network;
  if (topology::is_nvlink(t)) return BoundKind::NVLink;
  if (topology::is_pcie(t)) return BoundKind::Pcie;
  if (t == topology::LinkType::Xgmi) return BoundKind::Xgmi;
  return BoundKind::Other;
}

} // namespace

Health health_of(const CompareResult& r) {
  Health h;
  double peak = 0; // as bound_bands: the bandwidth band is every row at half the prediction's peak busbw or more
  for (const auto& x : r.rows) peak = std::max(peak, x.predicted_busbw);
  std::vector<double> ratios;
  for (const auto& x : r.rows) {
    if (x.predicted_busbw < 0.5 * peak || x.size < Bytes{1} << 20 || !(x.predicted_busbw > 0)) continue;
    if (ratios.empty() || x.size < h.lo) h.lo = x.size;
    if (ratios.empty() || x.size > h.hi) h.hi = x.size;
    ratios.push_back(x.measured_busbw / x.predicted_busbw);
  }
  h.rows = static_cast<int>(ratios.size());
  if (h.rows > 0) h.ratio = median(std::move(ratios));
  return h;
}

std::vector<BoundBand> bound_bands(const CompareResult& r, const topology::Topology& topo) {
  std::vector<BoundBand> out;
  if (r.rows.empty()) return out;
  double peak = 0; // the prediction's highest busbw: where fixed costs matter least
  for (const auto& x : r.rows) peak = std::max(peak, x.predicted_busbw);
  std::string net; // the first network link's type: a described cluster runs one fabric
  for (const auto& l : topo.links)
    if (topology::is_network(l.type)) {
      net = std::string(topology::to_string(l.type));
      break;
    }
  for (const bool latency : {true, false}) {
    BoundBand b;
    b.latency = latency;
    b.net = net;
    std::vector<double> mb, pb, mt, pt;
    for (const auto& x : r.rows) {
      if ((x.predicted_busbw < 0.5 * peak) != latency) continue;
      if (b.rows == 0 || x.size < b.lo) b.lo = x.size;
      if (b.rows == 0 || x.size > b.hi) b.hi = x.size;
      ++b.rows;
      mb.push_back(x.measured_busbw), pb.push_back(x.predicted_busbw);
      mt.push_back(x.measured_time_us), pt.push_back(x.predicted_time_us);
    }
    if (b.rows == 0) continue;
    b.measured_busbw = median(mb), b.predicted_busbw = median(pb);
    b.measured_time_us = median(mt), b.predicted_time_us = median(pt);
    // The bandwidth band holds the largest row: the link its replay kept busiest.
    // The bandwidth band holds the largest row: the link its replay used most, as a share of what the link can carry
    // over the replay. (Not the link busy longest: a flow held back elsewhere keeps every link on its path busy, so
    // a cross-node send would name its NVLink hop, busy all along at a NIC's rate.)
    if (!latency && r.largest_replayed && r.largest.makespan > 0) {
      const auto& bytes = r.largest.channels.bytes;
      std::vector<double> used(bytes.size(), 0.0);
      double most = 0;
      for (std::size_t c = 0; c < bytes.size(); ++c) {
        const double can = static_cast<double>(topo.channel_capacity(static_cast<topology::ChannelId>(c))) * to_sec(r.largest.makespan);
        used[c] = can > 0 ? static_cast<double>(bytes[c]) / can : 0.0;
        most = std::max(most, used[c]);
      }
      if (most > 0) {
        // Within 0.1% of the most used: symmetric schedules tie only up to rounding.
        std::size_t first = bytes.size();
        for (std::size_t c = 0; c < bytes.size(); ++c)
          if (used[c] * 1000 >= most * 999) {
            if (first == bytes.size()) first = c;
            ++b.links;
          }
        const auto c = static_cast<topology::ChannelId>(first);
        const auto& link = topo.link_of(c);
        b.kind = bound_kind(link.type);
        // A PCIe link to a NIC carries what the NIC sends: the NIC's side of the network.
        const auto nic = [&](int node) { return topo.nodes[static_cast<std::size_t>(node)].kind == topology::NodeKind::Nic; };
        if (b.kind == BoundKind::Pcie && (nic(link.a) || nic(link.b))) b.kind = BoundKind::NicPcie;
        b.type = std::string(topology::to_string(link.type));
        b.name = topo.channel_name(c);
        b.link_GBps = static_cast<double>(link.capacity()) / 1e9;
        b.used_pct = 100.0 * most;
        b.full = b.used_pct >= kFullLinkPct;
      }
    }
    out.push_back(b);
  }
  return out;
}

} // namespace ccsim::model
