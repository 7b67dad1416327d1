#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/core/output_files.hpp"

using namespace ccsim;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "ccsim-out-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path); }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace

TEST_CASE("OutputSet publishes every file only on commit") {
  TempDir d;
  {
    OutputSet set;
    set.add((d.path / "a.txt").string(), "alpha");
    set.add((d.path / "b.json").string(), "{}");
    CHECK(d.names().size() == 2); // two temporaries, no target yet
    CHECK(!fs::exists(d.path / "a.txt"));
    set.commit();
  }
  CHECK(d.names() == std::vector<std::string>{"a.txt", "b.json"});
  CHECK(read(d.path / "a.txt") == "alpha");
}

TEST_CASE("OutputSet removes its temporaries when the run fails before commit") {
  TempDir d;
  {
    OutputSet set;
    set.add((d.path / "a.txt").string(), "alpha");
    const std::string png = set.reserve((d.path / "plot.png").string());
    CHECK(fs::path(png).extension() == ".png"); // a plotting script sees the format
    CHECK_THROWS_AS(set.add((d.path / "missing" / "c.txt").string(), "x"), Error);
  }
  CHECK(d.names().empty());
}

TEST_CASE("OutputSet never writes through a link planted at the old temporary name or the target") {
  TempDir d;
  { std::ofstream(d.path / "victim") << "precious"; }
  fs::create_symlink(d.path / "victim", d.path / "out.txt.ccsim-tmp");
  fs::create_symlink(d.path / "victim", d.path / "out.txt");
  OutputSet set;
  set.add((d.path / "out.txt").string(), "table");
  set.commit();
  CHECK(read(d.path / "victim") == "precious");
  CHECK(!fs::is_symlink(d.path / "out.txt"));
  CHECK(read(d.path / "out.txt") == "table");
}

TEST_CASE("OutputSet refuses an output that is one of the run's inputs, and leaves the input as it was") {
  TempDir d;
  const auto trace = (d.path / "t.txt").string();
  { std::ofstream(trace) << "measured"; }
  note_input(trace);
  {
    OutputSet set;
    CHECK_THROWS_WITH_AS(set.add(trace, "report", "--output"), doctest::Contains("--output"), Error);
    CHECK_THROWS_AS(set.add((d.path / "." / "t.txt").string(), "report"), Error); // another spelling of it
    CHECK(set.empty());
  }
  CHECK(read(trace) == "measured");
  CHECK(d.names() == std::vector<std::string>{"t.txt"}); // no temporary left
  // An input read after its output was staged: commit() publishes nothing.
  forget_inputs();
  {
    OutputSet set;
    set.add((d.path / "a.txt").string(), "alpha");
    set.add(trace, "report");
    note_input(trace);
    CHECK_THROWS_AS(set.commit(), Error);
  }
  CHECK(read(trace) == "measured");
  CHECK(d.names() == std::vector<std::string>{"t.txt"});
  // commit() forgot the inputs: the next run (the Python module's next call) may write there.
  OutputSet next;
  next.add(trace, "report");
  next.commit();
  CHECK(read(trace) == "report");
}

TEST_CASE("OutputSet refuses two outputs to one file") {
  TempDir d;
  OutputSet set;
  set.add((d.path / "out.txt").string(), "table", "--output");
  CHECK_THROWS_WITH_AS(set.add((d.path / "sub" / ".." / "out.txt").string(), "graph", "--nccl-graph"),
                       doctest::Contains("--output"), Error);
  CHECK_THROWS_AS(set.reserve((d.path / "out.txt").string(), "--plot"), Error);
  set.add("/dev/null", "a");
  set.add("/dev/null", "b"); // a device is written into, twice is fine
  set.commit();
  CHECK(read(d.path / "out.txt") == "table");
}
