// A one-line progress bar for long work, drawn on stderr only when stderr is a terminal, so piped or
// redirected output (and CI logs) stay clean. It appears only once the work has taken a moment, is
// redrawn at most a few times a second, and erases itself when done.
//   report::Progress bar("sizes", sizes.size());
//   for (...) { bar.update(i, "128 MiB"); ... }   // then bar.done() or let it go out of scope
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>

namespace ccsim::report {

class Progress {
 public:
  using Clock = std::chrono::steady_clock;
  // Draws on stderr if it is a terminal (and TERM is not "dumb").
  Progress(std::string what, std::size_t total);
  // Explicit target and switches, for tests and for callers that know better.
  Progress(std::string what, std::size_t total, std::FILE* out, bool enabled, Clock::duration delay = std::chrono::milliseconds(300),
           int width = 80);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // `done` items of `total` are finished; `current` names the one being worked on.
  void update(std::size_t done, const std::string& current = {});
  // Erases the bar (if one was drawn). Idempotent.
  void done();
  bool enabled() const { return enabled_; }
  // Whether the default constructor draws: stderr is a terminal and TERM is not "dumb".
  static bool stderr_is_terminal();

  // The bar's text for `done` of `total` after `elapsed`, fitted to `width` columns (no control codes).
  static std::string render(const std::string& what, std::size_t done, std::size_t total, const std::string& current,
                            Clock::duration elapsed, int width);

 private:
  std::string what_;
  std::size_t total_;
  std::FILE* out_;
  bool enabled_;
  Clock::duration delay_;
  int width_;
  Clock::time_point start_, last_draw_;
  bool drawn_ = false;
};

} // namespace ccsim::report
