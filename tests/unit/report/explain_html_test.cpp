// explain --format html: the schedule picture says who sends how much to whom at each step (checked
// against the textbook ring and binomial tree by hand), and the page is self-contained.
#include <doctest/doctest.h>

#include <set>

#include "sim/metrics/schedule_picture.hpp"
#include "sim/report/explain_html.hpp"

using namespace ccsim;

namespace {
metrics::ExplainSetup crossbar(schedule::Op op, int p) {
  metrics::ExplainSetup s;
  s.op = op;
  s.ranks = p;
  s.params.alpha = 2'000'000;
  s.params.bw = 10'000'000'000ULL;
  return s;
}
std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = hay.find(needle); pos != std::string::npos; pos = hay.find(needle, pos + 1)) ++n;
  return n;
}
} // namespace

TEST_CASE("picture of ring allreduce on 4 ranks: 6 steps, each rank sends n/4 to rank+1, reduced in the first 3") {
  const auto s = crossbar(schedule::Op::AllReduce, 4);
  const auto pic = metrics::picture_schedule(s, "ring", 4096, 0);
  CHECK(pic.total_steps == 6); // 2(p-1)
  REQUIRE(pic.steps.size() == 6);
  for (std::size_t st = 0; st < 6; ++st) {
    REQUIRE(pic.steps[st].size() == 4);
    std::set<Bytes> offsets;
    for (const auto& m : pic.steps[st]) {
      CHECK(m.to == (m.from + 1) % 4);
      CHECK(m.bytes == 1024);
      CHECK(m.reduces == (st < 3));
      offsets.insert(m.off);
    }
    CHECK(offsets.size() == 4); // every rank sends a different quarter
  }
}

TEST_CASE("picture of binomial broadcast on 5 ranks: 4 messages in all, each of the whole vector, none reduced") {
  const auto s = crossbar(schedule::Op::Broadcast, 5);
  const auto pic = metrics::picture_schedule(s, "binomial", 1000, 0);
  std::size_t messages = 0;
  std::set<int> reached;
  for (const auto& step : pic.steps)
    for (const auto& m : step) {
      ++messages;
      CHECK(m.bytes == 1000);
      CHECK_FALSE(m.reduces);
      reached.insert(m.to);
    }
  CHECK(messages == 4); // p - 1 ranks receive it once each
  CHECK(reached == std::set<int>{1, 2, 3, 4});
}

TEST_CASE("html page: one drawing per step, no script, nothing fetched, text escaped") {
  const auto s = crossbar(schedule::Op::AllReduce, 3);
  const auto e = metrics::explain_one(s, "ring", 3000);
  const auto pic = metrics::picture_schedule(s, "ring", 3000, 0);
  const auto html = report::render_html(e, &pic, s.op, 3, "");
  CHECK(count(html, "<div class=\"step\">") == 4); // 2(p-1)
  CHECK(count(html, "<svg") == 5);                 // the steps and the time bars
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("http") == std::string::npos);
  CHECK(html.rfind("</html>") != std::string::npos);
  CHECK(report::html_escape("a<b & \"c\">") == "a&lt;b &amp; &quot;c&quot;&gt;");
  CHECK_THROWS(metrics::picture_schedule(crossbar(schedule::Op::AllReduce, 17), "ring", 17000, 0));
}
