#include "sim/core/output_files.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/core/error.hpp"
#include "sim/core/printable.hpp"

namespace ccsim {
namespace {

// "<dir>/.<name>.ccsim-tmp-XXXXXX<ext>" opened with mkstemps (mode 0600, O_EXCL). Returns the fd and sets `path`.
int create_temp(const std::string& target, std::string& path) {
  const std::filesystem::path t(target);
  const std::string dir = t.has_parent_path() ? t.parent_path().string() : ".";
  const std::string ext = t.extension().string();
  std::string tmpl = dir + "/." + t.filename().string() + ".ccsim-tmp-XXXXXX" + ext;
  const int fd = ::mkstemps(tmpl.data(), static_cast<int>(ext.size()));
  if (fd < 0) fail("{}: cannot open for writing: {}", printable(target), std::strerror(errno));
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

} // namespace

void OutputSet::add(const std::string& target, std::string_view content) {
  std::string temp;
  const int fd = create_temp(target, temp);
  const bool ok = write_all(fd, content);
  const int err = errno;
  if (::close(fd) != 0 || !ok) {
    ::unlink(temp.c_str());
    fail("{}: write failed: {}", printable(target), std::strerror(ok ? errno : err));
  }
  pending_.push_back({target, temp});
}

std::string OutputSet::reserve(const std::string& target) {
  std::string temp;
  ::close(create_temp(target, temp));
  pending_.push_back({target, temp});
  return temp;
}

void OutputSet::commit() {
  for (std::size_t i = 0; i < pending_.size(); ++i)
    if (std::rename(pending_[i].temp.c_str(), pending_[i].target.c_str()) != 0) {
      const std::string target = pending_[i].target, why = std::strerror(errno);
      pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(i));
      discard();
      fail("{}: cannot write: {}", printable(target), why);
    }
  pending_.clear();
}

void OutputSet::discard() {
  for (const auto& p : pending_) ::unlink(p.temp.c_str());
  pending_.clear();
}

ScratchFile::ScratchFile(const std::string& near, std::string_view content) {
  const int fd = create_temp(near + ".json", path_);
  const bool ok = write_all(fd, content);
  const int err = errno;
  if (::close(fd) != 0 || !ok) {
    ::unlink(path_.c_str());
    fail("{}: cannot write a temporary next to it: {}", printable(near), std::strerror(ok ? errno : err));
  }
}

ScratchFile::~ScratchFile() { ::unlink(path_.c_str()); }

} // namespace ccsim
