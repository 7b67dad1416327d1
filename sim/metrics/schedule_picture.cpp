#include "sim/metrics/schedule_picture.hpp"

#include <algorithm>
#include <map>

#include "sim/core/error.hpp"

namespace ccsim::metrics {
using schedule::Action;

SchedulePicture picture_schedule(const ExplainSetup& s, const std::string& algo_name, Bytes size, Bytes segment_bytes,
                                 int max_steps) {
  const auto& algo = schedule::require_algorithm(s.op, algo_name);
  const int p = s.topo ? ranks_of(s.run) : s.ranks;
  if (p > kPictureMaxRanks) fail("explain: a schedule picture shows at most {} ranks, not {}", kPictureMaxRanks, p);
  RunConfig run = s.run;
  run.op = s.op;
  run.dtype.size = s.elt_size;
  if (algo.pipelined) run.segment_bytes = segment_bytes;
  const auto plan = plan_size(s.op, p, size, s.elt_size);
  const auto sched = algo.make(coll_args(run, plan.count, p));
  SchedulePicture pic;
  pic.ranks = p;
  pic.buffer_elems = sched->buffer_elems();
  // A receiver reduces what a sender sends when its matching receive (in order, per sender) is a RecvReduce:
  // collect every rank's receives per sender first.
  std::map<std::pair<int, int>, std::vector<bool>> reduces; // (receiver, sender) -> in order
  std::vector<std::vector<std::vector<Action>>> acts(static_cast<std::size_t>(p));
  std::vector<Action> a;
  for (int r = 0; r < p; ++r) {
    for (int st = 0; sched->step(r, st, a); ++st) {
      pic.total_steps = std::max(pic.total_steps, st + 1);
      for (const auto& x : a)
        if (x.kind == Action::Kind::Recv || x.kind == Action::Kind::RecvReduce)
          reduces[{r, x.peer}].push_back(x.kind == Action::Kind::RecvReduce);
      if (st < max_steps) acts[static_cast<std::size_t>(r)].push_back(a);
      if (st > 100000) fail("explain: {} has more than 100000 steps per rank; no picture", algo_name);
    }
  }
  const int shown = std::min(pic.total_steps, max_steps);
  pic.steps.resize(static_cast<std::size_t>(shown));
  pic.copies.resize(static_cast<std::size_t>(shown));
  std::map<std::pair<int, int>, std::size_t> sent; // (receiver, sender) -> messages so far
  for (int st = 0; st < shown; ++st)
    for (int r = 0; r < p; ++r) {
      const auto& ra = acts[static_cast<std::size_t>(r)];
      if (static_cast<std::size_t>(st) >= ra.size()) continue;
      bool copied = false;
      for (const auto& x : ra[static_cast<std::size_t>(st)]) {
        if (x.kind == Action::Kind::Copy) copied = true;
        if (x.kind != Action::Kind::Send) continue;
        const auto& rv = reduces[{x.peer, r}];
        const std::size_t k = sent[{x.peer, r}]++;
        pic.steps[static_cast<std::size_t>(st)].push_back({r, x.peer, x.len * s.elt_size, x.off, x.len, k < rv.size() && rv[k]});
      }
      if (copied) pic.copies[static_cast<std::size_t>(st)].push_back(r);
    }
  return pic;
}

} // namespace ccsim::metrics
