#include "sim/report/progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

namespace ccsim::report {
namespace {

int terminal_width() {
  winsize ws{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
  return 80;
}

std::string short_duration(double s) {
  const auto t = static_cast<long long>(s + 0.5);
  if (t < 60) return fmt::format("{}s", t);
  if (t < 3600) return fmt::format("{}m{:02}s", t / 60, t % 60);
  return fmt::format("{}h{:02}m", t / 3600, t / 60 % 60);
}

} // namespace

bool Progress::stderr_is_terminal() {
  const char* term = std::getenv("TERM");
  return isatty(STDERR_FILENO) == 1 && !(term && std::strcmp(term, "dumb") == 0);
}

Progress::Progress(std::string what, std::size_t total)
    : Progress(std::move(what), total, stderr, stderr_is_terminal(), std::chrono::milliseconds(300),
               stderr_is_terminal() ? terminal_width() : 80) {}

Progress::Progress(std::string what, std::size_t total, std::FILE* out, bool enabled, Clock::duration delay, int width)
    : what_(std::move(what)), total_(total), out_(out), enabled_(enabled), delay_(delay), width_(width),
      start_(Clock::now()), last_draw_(start_) {}

Progress::~Progress() { done(); }

std::string Progress::render(const std::string& what, std::size_t done, std::size_t total, const std::string& current,
                             Clock::duration elapsed, int width) {
  done = std::min(done, total);
  const double frac = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  const double secs = std::chrono::duration<double>(elapsed).count();
  std::string tail = fmt::format(" {}/{} {} {:3.0f}%", done, total, what, 100 * frac);
  if (done > 0 && done < total) tail += " eta " + short_duration(secs / static_cast<double>(done) * static_cast<double>(total - done));
  if (!current.empty()) tail += "  " + current;
  // The bar takes what the text leaves, between 10 and 40 columns; the text is cut if still too long.
  const int bar = std::clamp(width - 1 - 2 - static_cast<int>(tail.size()), 10, 40);
  const int filled = static_cast<int>(frac * bar);
  std::string s = "[" + std::string(static_cast<std::size_t>(filled), '#') + std::string(static_cast<std::size_t>(bar - filled), '.') + "]" + tail;
  if (static_cast<int>(s.size()) > width - 1) s.resize(static_cast<std::size_t>(std::max(width - 1, 0)));
  return s;
}

void Progress::update(std::size_t done, const std::string& current) {
  if (!enabled_) return;
  const auto now = Clock::now();
  if (now - start_ < delay_) return;                                                   // quick work: no bar at all
  if (drawn_ && now - last_draw_ < std::chrono::milliseconds(100) && done < total_) return; // don't flood the terminal
  const std::string line = render(what_, done, total_, current, now - start_, width_);
  std::fprintf(out_, "\r%s\033[K", line.c_str());
  std::fflush(out_);
  drawn_ = true;
  last_draw_ = now;
}

void Progress::done() {
  if (drawn_) {
    std::fputs("\r\033[K", out_);
    std::fflush(out_);
  }
  drawn_ = false;
  enabled_ = false;
}

} // namespace ccsim::report
