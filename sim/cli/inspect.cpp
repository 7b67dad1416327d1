#include "sim/cli/inspect.hpp"

#include <algorithm>

#include "sim/cli/common.hpp"
#include "sim/core/error.hpp"
#include "sim/observe/timeline.hpp"
#include "sim/report/link_report_text.hpp"
#include "sim/core/json_file.hpp"
#include "sim/core/json_io.hpp"

namespace ccsim::cli {

Inspector::Inspector(const RunOptions& o, const topology::Topology& topo, const metrics::RunConfig& cfg,
                     const std::vector<Bytes>& sizes, report::Format fmt)
    : o_(o), topo_(topo), cfg_(cfg), fmt_(fmt) {
  active_ = !o.timeline.empty() || o.links;
  if (!active_) {
    if (!o.timeline_size.empty()) fail("--timeline-size: picks the size for --timeline or --links; give one of them too");
    return;
  }
  if (o.links && fmt == report::Format::Csv)
    fail("--links: CSV has no place for the link report; use --format table (report after the table) or json (\"links\" key)");
  if (o.timeline == "-" || (!o.timeline.empty() && o.timeline == o.output))
    fail("--timeline: give a file of its own (the table goes to stdout or --output)");
  size_ = o.timeline_size.empty() ? sizes.back() : parse_size(o.timeline_size, "--timeline-size");
  if (size_ == 0) fail("--timeline-size: must be at least one byte");
  if (size_ > (Bytes{1} << 40)) fail("--timeline-size: {} is larger than 1 TiB", o.timeline_size);
}

std::vector<engine::Observer*> Inspector::observers(Bytes size) {
  if (!active_ || size != size_ || rec_) return {};
  rec_ = std::make_unique<observe::Recorder>(topo_.num_channels(), kMaxRecorded);
  return {rec_.get()};
}

void Inspector::saw(Bytes size, const metrics::Row& row) {
  if (active_ && size == size_ && !row_) row_ = row;
}

void Inspector::finish(const Predict& predict) {
  if (!active_) return;
  if (!row_) { // a size outside the sweep: predict it on its own (runs are deterministic, so nothing differs)
    auto obs = observers(size_);
    row_ = predict(size_, obs);
  }
  if (!row_->choice.simulated) fail("--timeline/--links: model {} predicted {} in closed form; there are no messages to show", cfg_.model_name,
                  format_size(size_));
  observe::TimelineMeta meta;
  meta.op = std::string(schedule::to_string(cfg_.op));
  meta.algo = cfg_.algo;
  meta.model = cfg_.model_name;
  meta.size = row_->plan.size;
  meta.elt_size = cfg_.dtype.size;
  meta.makespan = row_->time;
  meta.placements = row_->job_gpus.empty() ? cfg_.placements : row_->job_gpus;
  meta.job_names = row_->job_names;
  const auto& rec = rec_->recording();
  if (!o_.timeline.empty()) {
    if (rec.truncated)
      fail("--timeline: the run at {} has more than {} transfers, too many to draw; choose a smaller --timeline-size or fewer "
           "ranks",
           format_size(size_), kMaxRecorded);
    write_output(o_.timeline, observe::chrome_trace(rec, topo_, meta), "--timeline");
  }
  if (o_.links) report_ = observe::make_link_report(topo_, row_->result, &rec, std::move(meta));
}

std::string Inspector::decorate(const std::string& output) const {
  if (!report_) return output;
  const auto& rec = rec_->recording();
  if (fmt_ == report::Format::Json) {
    auto j = ordered_json_parse(output);
    j["links"] = report::link_report_json(*report_, topo_, &rec);
    return safe_dump(j, 2) + "\n";
  }
  return output + report::link_report_text(*report_, topo_, &rec);
}

} // namespace ccsim::cli
