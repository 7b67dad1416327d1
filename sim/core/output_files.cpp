#include "sim/core/output_files.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/printable.hpp"

namespace ccsim {
namespace {

// "--output out.csv": the flag that named the file as well as the file, so a refusal says what to change.
std::string named(std::string_view flag, const std::string& target) {
  return flag.empty() ? printable(target) : fmt::format("{} {}", flag, printable(target));
}

// "<dir>/.<name>.ccsim-tmp-XXXXXX<ext>" opened with mkstemps (mode 0600, O_EXCL). Returns the fd and sets `path`.
int create_temp(const std::string& target, std::string& path, std::string_view flag = {}) {
  // Refused now, not at commit(): by then the run's other output (the table on stdout) is printed.
  std::error_code ec;
  if (std::filesystem::symlink_status(target, ec).type() == std::filesystem::file_type::directory)
    fail("{}: is a directory, not a file to write", named(flag, target));
  const std::filesystem::path t(target);
  const std::string dir = t.has_parent_path() ? t.parent_path().string() : ".";
  const std::string ext = t.extension().string();
  std::string tmpl = dir + "/." + t.filename().string() + ".ccsim-tmp-XXXXXX" + ext;
  const int fd = ::mkstemps(tmpl.data(), static_cast<int>(ext.size()));
  if (fd < 0) fail("{}: cannot open for writing: {}", named(flag, target), std::strerror(errno));
  // mkstemps makes the file 0600; an output is an ordinary file, readable as the umask allows.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  path = tmpl;
  return fd;
}

// Writes all of `content`; false (errno set) on a short or failed write.
bool write_all(int fd, std::string_view content) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ENOSPC;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// True for a target that must be written into rather than replaced: an existing device, FIFO or socket,
// and anything under /dev or /proc (/dev/stdout is a symlink to the process's own descriptor). A symlink
// elsewhere is replaced, never written through (a link planted at an output name must not redirect it).
bool writes_through(const std::string& target) {
  if (target.starts_with("/dev/") || target.starts_with("/proc/")) return true;
  struct stat st {};
  if (::lstat(target.c_str(), &st) != 0) return false; // a new file: temporary, then rename
  return !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode) && !S_ISDIR(st.st_mode);
}

// A write-through target is opened only at commit(), after the run printed its table: one that cannot be written
// (`--plot /proc/p.png`, a device that is not there) is refused now, before anything is printed. access(), not
// open(): opening a FIFO for writing waits for its reader.
void check_writable(const std::string& target, std::string_view flag) {
  if (::access(target.c_str(), W_OK) != 0) fail("{}: cannot open for writing: {}", named(flag, target), std::strerror(errno));
}

// Opens an existing target for writing (following a symlink the user named; never creating one).
void write_into(const std::string& target, std::string_view content, std::string_view flag) {
  const int fd = ::open(target.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) fail("{}: cannot open for writing: {}", named(flag, target), std::strerror(errno));
  const bool ok = write_all(fd, content);
  const int err = errno;
  if (::close(fd) != 0 || !ok) fail("{}: write failed: {}", named(flag, target), std::strerror(ok ? errno : err));
}

struct Input {
  dev_t dev;
  ino_t ino;
  std::string path;
};
std::mutex inputs_mutex;
std::vector<Input> inputs; // guarded by inputs_mutex (a sweep reads its points' files on several threads)

// The input that writing `target` would replace: an existing regular file (lstat: a symlink at the target is
// replaced by the rename, never written through) that is one of the noted inputs.
std::optional<std::string> input_at(const std::string& target) {
  struct stat st {};
  if (::lstat(target.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  std::lock_guard lock(inputs_mutex);
  for (const auto& in : inputs)
    if (in.dev == st.st_dev && in.ino == st.st_ino) return in.path;
  return std::nullopt;
}

void refuse_input(const std::string& target, std::string_view flag) {
  if (const auto in = input_at(target))
    fail("{}: is {}, which this run reads; give the output a file of its own", named(flag, target),
         *in == target ? std::string("an input") : fmt::format("the input {}", printable(*in)));
}

// One spelling of a target for comparing two outputs: the absolute path with its folders' symlinks, "." and
// ".." resolved (the file itself need not exist yet).
std::string target_key(const std::string& target) {
  std::error_code ec;
  const auto p = std::filesystem::weakly_canonical(std::filesystem::absolute(target, ec), ec);
  return ec ? target : p.string();
}

std::string read_temp(const std::string& path) {
  std::string out;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  char buf[65536];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return out;
}

} // namespace

void note_input(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return; // a pipe or device is read, never replaced
  std::lock_guard lock(inputs_mutex);
  for (const auto& in : inputs)
    if (in.dev == st.st_dev && in.ino == st.st_ino) return;
  inputs.push_back({st.st_dev, st.st_ino, path});
}

void forget_inputs() {
  std::lock_guard lock(inputs_mutex);
  inputs.clear();
}

void OutputSet::check_new_target(const std::string& target, std::string_view flag) const {
  refuse_input(target, flag);
  const std::string key = target_key(target);
  for (const auto& p : pending_)
    if (!p.write_through && target_key(p.target) == key)
      fail("{}: {} writes {} too; give each output a file of its own", named(flag, target),
           p.flag.empty() ? std::string("another output") : p.flag, printable(p.target));
}

void OutputSet::add(const std::string& target, std::string_view content, std::string_view flag) {
  if (!writes_through(target)) check_new_target(target, flag);
  if (writes_through(target)) {
    check_writable(target, flag);
    pending_.push_back({target, "", std::string(content), true, std::string(flag)});
    return;
  }
  std::string temp;
  const int fd = create_temp(target, temp, flag);
  const bool ok = write_all(fd, content);
  const int err = errno;
  if (::close(fd) != 0 || !ok) {
    ::unlink(temp.c_str());
    fail("{}: write failed: {}", named(flag, target), std::strerror(ok ? errno : err));
  }
  pending_.push_back({target, temp, {}, false, std::string(flag)});
}

std::string OutputSet::reserve(const std::string& target, std::string_view flag) {
  std::string temp;
  if (!writes_through(target)) check_new_target(target, flag);
  if (writes_through(target)) { // filled in the temporary directory, copied into the target at commit()
    check_writable(target, flag);
    const std::string ext = std::filesystem::path(target).extension().string();
    ::close(create_temp((std::filesystem::temp_directory_path() / ("ccsim-output" + ext)).string(), temp));
    pending_.push_back({target, temp, {}, true, std::string(flag)});
    return temp;
  }
  ::close(create_temp(target, temp, flag));
  pending_.push_back({target, temp, {}, false, std::string(flag)});
  return temp;
}

void OutputSet::commit() {
  // An input read after its output was staged (add() checked the ones read before): nothing is published.
  for (const auto& p : pending_) {
    if (p.write_through) continue;
    try {
      refuse_input(p.target, p.flag);
    } catch (const Error&) {
      discard();
      throw;
    }
  }
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    auto& p = pending_[i];
    try {
      if (p.write_through) {
        write_into(p.target, p.temp.empty() ? std::string_view(p.content) : std::string_view(read_temp(p.temp)), p.flag);
        if (!p.temp.empty()) ::unlink(p.temp.c_str());
        p.temp.clear();
      } else if (std::rename(p.temp.c_str(), p.target.c_str()) != 0) {
        fail("{}: cannot write: {}", named(p.flag, p.target), std::strerror(errno));
      }
    } catch (const Error&) {
      pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(i));
      discard();
      throw;
    }
  }
  pending_.clear();
  forget_inputs();
}

void OutputSet::discard() {
  for (const auto& p : pending_)
    if (!p.temp.empty()) ::unlink(p.temp.c_str());
  pending_.clear();
  forget_inputs();
}

ScratchFile::ScratchFile(const std::string& near, std::string_view content) {
  // In the temporary directory, not beside `near`: where `near` cannot be created (`--plot /proc/p.png`) the
  // error must name it, not a scratch file the user never asked for, and a device's folder (/dev/stdout) takes
  // no scratch file.
  const int fd = create_temp((std::filesystem::temp_directory_path() / "ccsim-scratch.json").string(), path_);
  const bool ok = write_all(fd, content);
  const int err = errno;
  if (::close(fd) != 0 || !ok) {
    ::unlink(path_.c_str());
    fail("{}: cannot write its scratch input in {}: {}", printable(near), std::filesystem::temp_directory_path().string(),
         std::strerror(ok ? errno : err));
  }
}

ScratchFile::~ScratchFile() { ::unlink(path_.c_str()); }

} // namespace ccsim
