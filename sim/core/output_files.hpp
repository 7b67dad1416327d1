// Output files written all-or-nothing. Each output goes to a fresh temporary in its target's directory,
// created with mkstemps (O_CREAT|O_EXCL: a file or symlink planted at a guessable name is never opened or
// followed), and is renamed over its target only when every output of the run was written. On any error,
// or when the set is destroyed without commit(), every temporary is removed and no target is touched.
// A target that is a device, FIFO or socket, or lies under /dev or /proc (/dev/null, /dev/stdout), is
// written into at commit() instead: renaming over it would replace the node itself (as root, /dev/null
// became a regular file). A symlink elsewhere is replaced, never written through.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace ccsim {

// The files this process has read as a run's input (a trace, a topology, a parameter set, a plan, a script): an
// output to one of them is refused before anything is written, as is a second output to one target
// (`compare --trace t.txt --output t.txt` replaced the measured trace by its report). Safe from several threads.
void note_input(const std::string& path);
// Forgets them: the next run (the Python module runs one command per call) starts with none. OutputSet::commit()
// and discard() call it.
void forget_inputs();

class OutputSet {
 public:
  OutputSet() = default;
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;
  ~OutputSet() { discard(); }

  // Writes `content` to a new temporary for `target` now; throws Error naming `flag` (the option that gave
  // the file, e.g. "--output") and `target` (and removes the temporary) when it cannot be created or
  // written in full (disk full, file size limit).
  void add(const std::string& target, std::string_view content, std::string_view flag = {});
  // A new, empty temporary for `target` that another program fills (e.g. a plotting script); it keeps
  // the target's extension so that program sees the format. Published by commit() like the others.
  std::string reserve(const std::string& target, std::string_view flag = {});
  // Renames every temporary over its target, in the order added; throws Error naming the first that fails
  // (the remaining temporaries are removed). Before any rename, every target is checked against the inputs
  // noted since add() (note_input): one that is an input is refused and nothing is published.
  void commit();
  // Removes every temporary not yet published.
  void discard();
  bool empty() const { return pending_.empty(); }

 private:
  // Refuses a target that is a noted input or another pending output's file (Error naming `flag`).
  void check_new_target(const std::string& target, std::string_view flag) const;
  struct Pending {
    std::string target, temp; // temp empty: `content` is written into the target at commit()
    std::string content;
    bool write_through = false;
    std::string flag; // named in errors with the target
  };
  std::vector<Pending> pending_;
};

// A temporary file removed when this goes out of scope (inputs handed to a child process).
class ScratchFile {
 public:
  ScratchFile(const std::string& near, std::string_view content); // in the temporary directory, for output `near`; throws Error naming it
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  ~ScratchFile();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

} // namespace ccsim
