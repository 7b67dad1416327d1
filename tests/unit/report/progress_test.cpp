// The progress bar: its text, and that it writes nothing unless enabled and slow enough to matter.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "sim/report/progress.hpp"

using ccsim::report::Progress;
using namespace std::chrono_literals;

namespace {

std::string contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  for (int c; (c = std::fgetc(f)) != EOF;) s += static_cast<char>(c);
  return s;
}

} // namespace

TEST_CASE("the bar shows the fraction done, the count, an estimate, and fits the width") {
  const auto half = Progress::render("sizes", 5, 10, "1 MiB", 10s, 80);
  CHECK(half.find(" 5/10 sizes  50% eta 10s  1 MiB") != std::string::npos);
  const auto open = half.find('['), close = half.find(']');
  REQUIRE(close != std::string::npos);
  const auto bar = half.substr(open + 1, close - open - 1);
  CHECK(bar.size() >= 10);
  CHECK(std::count(bar.begin(), bar.end(), '#') == static_cast<long>(bar.size() / 2));
  CHECK(Progress::render("sizes", 0, 4, "", 1s, 80).find("eta") == std::string::npos); // nothing to estimate from
  CHECK(Progress::render("sizes", 4, 4, "", 1s, 80).find("100%") != std::string::npos);
  CHECK(Progress::render("sizes", 3, 600, "", 1s, 80).find("eta 3m19s") != std::string::npos);
  for (int w : {20, 40, 200}) CHECK(static_cast<int>(Progress::render("sizes", 3, 7, "a long name here", 1s, w).size()) <= w - 1);
}

TEST_CASE("disabled (not a terminal) or quick: nothing is written") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f);
  {
    Progress p("sizes", 3, f, false, 0ms);
    for (std::size_t i = 0; i < 3; ++i) p.update(i, "x");
  }
  {
    Progress p("sizes", 3, f, true, 1h); // enabled, but the work ends before the delay
    for (std::size_t i = 0; i < 3; ++i) p.update(i, "x");
  }
  CHECK(contents(f).empty());
  std::fclose(f);
}

TEST_CASE("enabled: draws in place with carriage returns and erases itself when done") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f);
  {
    Progress p("sizes", 2, f, true, 0ms);
    p.update(0, "8 B");
    p.update(2);
    p.done();
    p.update(1); // after done: ignored
  }
  const auto s = contents(f);
  CHECK(s.rfind("\r[", 0) == 0);
  CHECK(s.find("0/2 sizes") != std::string::npos);
  CHECK(s.find("2/2 sizes 100%") != std::string::npos); // the last update is drawn even within 100 ms
  CHECK(s.ends_with("\r\033[K"));
  CHECK(s.find('\n') == std::string::npos);
  std::fclose(f);
}
