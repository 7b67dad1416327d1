// `ccsim sbatch job.sbatch --topo ...`: a Slurm batch script read as sbatch and the shell would run it, far enough to
// know what each nccl-tests line starts: the #SBATCH allocation (read before the first command, as sbatch reads them;
// options typed before the script win, as sbatch's command line does), the variables the script sets and exports, and
// each srun/mpirun (or bare) line that starts a *_perf test. Each such line is predicted by perf_main as if pasted after
// ccsim, with srun's counts inherited from the allocation where the line gives none (srun inside a job takes
// SLURM_NNODES, SLURM_NTASKS, SLURM_NTASKS_PER_NODE as its -N, -n, --ntasks-per-node: srun(1), "INPUT ENVIRONMENT
// VARIABLES"; mpirun under Slurm runs one process per allocated task). What the shell would decide at run time (a
// loop, an if, a command substitution, a variable nobody set) is refused naming the script's line: no partial output.
#include "sim/cli/sbatch_command.hpp"

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <unistd.h> // environ

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/cli/common.hpp"
#include "sim/cli/perf_command.hpp"
#include "sim/core/error.hpp"
#include "sim/core/output_files.hpp"
#include "sim/core/printable.hpp"
#include "sim/topology/p2p.hpp"

namespace ccsim::cli {
namespace {

constexpr std::size_t kMaxScriptBytes = 1 << 20; // a batch script, not a data file
// All the text the script's variables expand to, summed over its lines: `A=$A$A` on 40 lines doubles a value to
// terabytes (std::bad_alloc after 30 s under a 4 GB limit). 16 MiB is 16 times the largest script read.
constexpr std::size_t kMaxExpandedBytes = 16 << 20;

std::string base_name(const std::string& w) {
  const auto slash = w.rfind('/');
  return slash == std::string::npos ? w : w.substr(slash + 1);
}

bool is_launcher(const std::string& w) {
  const std::string b = base_name(w);
  return b == "srun" || b == "mpirun" || b == "mpiexec" || b == "mpiexec.hydra" || b == "orterun" || b == "prterun";
}

// A word naming an nccl-tests program: "all_reduce_perf", "${NCCL_TESTS}/build/all_reduce_perf", "all_reduce_perf_mpi".
bool names_perf(const std::string& w) {
  std::string b = base_name(w);
  if (b.size() > 4 && b.ends_with("_mpi")) b.resize(b.size() - 4);
  return b.size() > 5 && b.ends_with("_perf");
}

bool valid_name(std::string_view n) {
  if (n.empty() || !(std::isalpha(static_cast<unsigned char>(n[0])) || n[0] == '_')) return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// The job's allocation, each with the words and place that gave it ("#SBATCH --nodes=2 (line 2)").
struct Alloc {
  std::optional<int> nodes, ntasks, per_node, gpus_per_node;
  std::map<std::string, std::string> from; // "nodes" -> "#SBATCH --nodes=2 (line 2)"
};

int count_of(const std::string& where, const std::string& opt, const std::string& v, const char* what) {
  int x = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || ec != std::errc() || p != v.data() + v.size() || x < 1 || x > 100000)
    fail("{}: {} {}: not a count of {} (a whole number 1..100000{})", where, opt, printable(v, 40), what,
         opt == "--nodes" ? "; a range such as 2-4 lets Slurm choose: give one" : "");
  return x;
}

// sbatch's options that change what a test line starts (the rest, --time, --partition, --exclusive, ..., change
// nothing a prediction reads). `where` names the place for an error and for the header.
void read_sbatch_options(const std::vector<std::string>& words, const std::string& where, const std::string& label_before,
                         const std::string& label_after, Alloc& a) {
  // Short options of sbatch that take the next word as their value (sbatch(1)), so that "-p gpu" skips "gpu".
  const std::string short_with_value = "AabcCDdeFGJLMmNnopqStwx";
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    std::string opt, value;
    bool has_value = false;
    if (w.starts_with("--")) {
      const auto eq = w.find('=');
      opt = w.substr(0, eq);
      if (eq != std::string::npos) value = w.substr(eq + 1), has_value = true;
    } else if (w.size() >= 2 && w[0] == '-' && short_with_value.find(w[1]) != std::string::npos) {
      opt = w.substr(0, 2);
      if (w.size() > 2) value = w.substr(2), has_value = true;
    } else {
      continue;
    }
    const bool ours = opt == "-N" || opt == "--nodes" || opt == "-n" || opt == "--ntasks" || opt == "--ntasks-per-node" ||
                      opt == "--gpus-per-node" || opt == "--gres";
    if (!has_value && (opt.size() == 2 || ours)) {
      if (i + 1 >= words.size()) {
        if (ours) fail("{}: {}: needs a value", where, opt);
        continue;
      }
      value = words[++i], has_value = true;
    }
    if (!ours) continue;
    const std::string said = fmt::format("{}{} {}{}", label_before, opt, printable(value, 40), label_after);
    if (opt == "-N" || opt == "--nodes") a.nodes = count_of(where, "--nodes", value, "nodes"), a.from["nodes"] = said;
    else if (opt == "-n" || opt == "--ntasks") a.ntasks = count_of(where, "--ntasks", value, "tasks"), a.from["ntasks"] = said;
    else if (opt == "--ntasks-per-node") a.per_node = count_of(where, opt, value, "tasks"), a.from["per_node"] = said;
    else if (opt == "--gpus-per-node") { // [type:]count
      const auto colon = value.rfind(':');
      a.gpus_per_node = count_of(where, opt, colon == std::string::npos ? value : value.substr(colon + 1), "GPUs");
      a.from["gpus"] = said;
    } else { // --gres=gpu[:type]:count[,other...]
      std::string_view list = value;
      while (!list.empty()) {
        const auto comma = list.find(',');
        const std::string piece(list.substr(0, comma));
        if (piece == "gpu" || piece.starts_with("gpu:")) {
          const auto colon = piece.rfind(':');
          a.gpus_per_node = colon == std::string::npos ? 1 : count_of(where, "--gres", piece.substr(colon + 1), "GPUs");
          a.from["gpus"] = said;
        }
        list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
      }
    }
  }
}

// A shell variable as the script leaves it: its value, or why it cannot be known here.
struct Var {
  std::string value;
  std::string unknown; // "" when known; else why ("set by a command substitution on line 4")
  bool exported = false;
  int line = 0;
};

// One word after expansion; `unknown` says why part of it cannot be known (its first such part).
struct Word {
  std::string text;
  std::string unknown;
  bool assignment = false; // NAME=VALUE, unquoted name
  bool quoted = false;     // had quotes: kept even when empty, as the shell keeps ""
};

struct Command {
  std::vector<Word> words;
};

class Script {
 public:
  Script(std::string path, std::map<std::string, Var>& vars, const Alloc& alloc) : path_(std::move(path)), vars_(vars), alloc_(alloc) {}

  // The commands of one (joined) line: words split and expanded as the shell does, redirections dropped,
  // commands split at ; & && || | ( ). Comments end the line.
  std::vector<Command> split(const std::string& line, int line_no) {
    line_no_ = line_no;
    std::vector<Command> out(1);
    Word cur;
    bool in_word = false;
    auto end_word = [&] {
      if (in_word && (cur.quoted || !cur.text.empty() || !cur.unknown.empty())) out.back().words.push_back(cur);
      cur = Word{}, in_word = false;
    };
    auto end_command = [&] {
      end_word();
      if (!out.back().words.empty()) out.emplace_back();
    };
    std::size_t i = 0;
    const std::size_t n = line.size();
    while (i < n) {
      const char c = line[i];
      if (c == ' ' || c == '\t') {
        end_word();
        ++i;
        continue;
      }
      if (c == '#' && !in_word) break;
      if (c == ';' || c == '|' || c == '&' || c == '(' || c == ')') {
        if (c == '&' && i + 1 < n && line[i + 1] == '>') { // &> file: a redirection, below
        } else if (c == '(' && in_word && !cur.text.empty() && cur.unknown.empty()) { // name() { a function
          cur.text += "()";
          i += (i + 1 < n && line[i + 1] == ')') ? 2 : 1;
          continue;
        } else {
          end_command();
          ++i;
          if (i < n && (line[i] == c) && (c == '&' || c == '|' || c == ';')) ++i;
          continue;
        }
      }
      if (c == '>' || c == '<' || c == '&') {
        // "2>&1", ">>log", "<in": the fd digits before, the operator, then its target word, all dropped.
        bool digits = in_word && !cur.text.empty() && cur.unknown.empty();
        for (char d : cur.text) digits = digits && std::isdigit(static_cast<unsigned char>(d));
        if (digits) cur = Word{}, in_word = false;
        end_word();
        ++i;
        while (i < n && (line[i] == '>' || line[i] == '<' || line[i] == '&' || line[i] == '|')) ++i;
        while (i < n && (line[i] == ' ' || line[i] == '\t')) ++i;
        // the target, up to the next blank or operator
        Word target;
        read_word_part(line, i, target, /*stop_at_ops=*/true);
        pending_.clear();
        continue;
      }
      in_word = true;
      if (cur.text.empty() && cur.unknown.empty() && (c == '=' ? false : true)) {
        // NAME=VALUE: an assignment when the word starts with a valid name then '='
        std::size_t j = i;
        while (j < n && (std::isalnum(static_cast<unsigned char>(line[j])) || line[j] == '_')) ++j;
        if (j < n && line[j] == '=' && valid_name(std::string_view(line).substr(i, j - i))) {
          cur.assignment = true;
          cur.text = line.substr(i, j - i + 1);
          i = j + 1;
          // the value is one word, even with blanks from an expansion
          read_word_part(line, i, cur, true, /*no_split=*/true);
          continue;
        }
      }
      read_word_part(line, i, cur, true);
      // unquoted expansions split into several words: read_word_part leaves the parts in pending_
      if (!pending_.empty()) {
        for (auto& p : pending_) {
          out.back().words.push_back(cur);
          cur = std::move(p);
        }
        pending_.clear();
      }
    }
    end_word();
    if (out.back().words.empty()) out.pop_back();
    return out;
  }

  // Reads one word from line[i] up to a blank or an operator, expanding quotes and variables into w.
  void read_word_part(const std::string& line, std::size_t& i, Word& w, bool stop_at_ops, bool no_split = false) {
    const std::size_t n = line.size();
    while (i < n) {
      const char c = line[i];
      if (c == ' ' || c == '\t') break;
      if (stop_at_ops && (c == ';' || c == '|' || c == '&' || c == '(' || c == ')' || c == '<' || c == '>')) break;
      if (c == '\'') {
        const auto close = line.find('\'', i + 1);
        if (close == std::string::npos) fail("{} line {}: a quote ' not closed on its line", path_, line_no_);
        w.text += line.substr(i + 1, close - i - 1);
        w.quoted = true;
        i = close + 1;
      } else if (c == '"') {
        w.quoted = true;
        ++i;
        while (i < n && line[i] != '"') {
          if (line[i] == '\\' && i + 1 < n) {
            w.text += line[i + 1];
            i += 2;
          } else if (line[i] == '$' || line[i] == '`') {
            expand(line, i, w, /*quoted=*/true);
          } else {
            w.text += line[i++];
          }
        }
        if (i >= n) fail("{} line {}: a quote \" not closed on its line", path_, line_no_);
        ++i;
      } else if (c == '\\') {
        if (i + 1 < n) w.text += line[i + 1];
        i += 2;
      } else if (c == '$' || c == '`') {
        expand(line, i, w, /*quoted=*/no_split);
      } else {
        w.text += c;
        ++i;
      }
    }
  }

 private:
  void unknown(Word& w, const std::string& why) {
    if (w.unknown.empty()) w.unknown = why;
  }

  // $NAME, ${NAME}, ${NAME:-default}, $(...), `...`, $1: the value into w (split at blanks unless quoted).
  void expand(const std::string& line, std::size_t& i, Word& w, bool quoted) {
    const std::size_t n = line.size();
    if (line[i] == '`' || (i + 1 < n && line[i + 1] == '(')) {
      // skip to the matching close, counting parentheses
      if (line[i] == '`') {
        const auto close = line.find('`', i + 1);
        i = close == std::string::npos ? n : close + 1;
      } else {
        int depth = 0;
        for (; i < n; ++i) {
          if (line[i] == '(') ++depth;
          else if (line[i] == ')' && --depth == 0) break;
        }
        ++i;
      }
      unknown(w, "a command substitution, which ccsim does not run");
      w.text += "?";
      return;
    }
    ++i; // the $
    std::string name, fallback;
    bool has_fallback = false;
    if (i < n && line[i] == '{') {
      const auto close = line.find('}', i);
      if (close == std::string::npos) fail("{} line {}: ${{ not closed on its line", path_, line_no_);
      std::string inner = line.substr(i + 1, close - i - 1);
      i = close + 1;
      std::size_t k = 0;
      while (k < inner.size() && (std::isalnum(static_cast<unsigned char>(inner[k])) || inner[k] == '_')) ++k;
      name = inner.substr(0, k);
      const std::string rest = inner.substr(k);
      if (rest.starts_with(":-") || rest.starts_with("-")) {
        fallback = rest.substr(rest[0] == ':' ? 2 : 1), has_fallback = true;
      } else if (!rest.empty() || name.empty()) {
        unknown(w, fmt::format("${{{}}}, an expansion ccsim does not evaluate", printable(inner, 40)));
        w.text += "?";
        return;
      }
    } else {
      while (i < n && (std::isalnum(static_cast<unsigned char>(line[i])) || line[i] == '_')) name += line[i++];
      if (name.empty()) {
        if (i < n && std::string_view("@*#?$!-").find(line[i]) != std::string_view::npos) {
          unknown(w, fmt::format("${}, which only the running shell knows", line[i]));
          w.text += "?";
          ++i;
        } else {
          w.text += '$';
        }
        return;
      }
    }
    std::string value;
    if (std::isdigit(static_cast<unsigned char>(name[0]))) {
      if (!has_fallback) {
        unknown(w, fmt::format("${}, the script's argument {} (ccsim sbatch takes ccsim's flags after the script, not the script's arguments)", name, name));
        w.text += "?";
        return;
      }
      value = fallback;
    } else if (const auto v = lookup(name)) {
      if (!v->unknown.empty()) {
        if (has_fallback && v->unknown.starts_with("not set")) value = fallback;
        else {
          unknown(w, fmt::format("${} ({})", name, v->unknown));
          w.text += "?";
          return;
        }
      } else {
        value = v->value;
      }
    } else {
      if (!has_fallback) {
        unknown(w, fmt::format("${}, set neither in the script, by its #SBATCH lines, nor in ccsim's environment", name));
        w.text += "?";
        return;
      }
      value = fallback;
    }
    used.insert(name);
    expanded_ += value.size();
    if (expanded_ > kMaxExpandedBytes)
      fail("{} line {}: ${} ({} bytes): the script's variables expand to more than 16 MiB of text, which no batch script "
           "ccsim reads needs", path_, line_no_, name, value.size());
    if (quoted) {
      w.text += value;
      return;
    }
    // Unquoted: split at blanks. The first piece joins the current word; each later piece starts a new word.
    std::size_t k = 0;
    bool first = true;
    while (k <= value.size()) {
      const auto blank = value.find_first_of(" \t\n", k);
      const std::string piece = value.substr(k, blank == std::string::npos ? std::string::npos : blank - k);
      if (first) w.text += piece;
      else if (!piece.empty()) pending_.push_back(Word{piece, {}, false});
      first = false;
      if (blank == std::string::npos) break;
      k = blank + 1;
    }
  }

  std::optional<Var> lookup(const std::string& name) {
    if (const auto it = vars_.find(name); it != vars_.end()) return it->second;
    // What Slurm sets in the job from its allocation (sbatch(1), "OUTPUT ENVIRONMENT VARIABLES").
    auto slurm = [&](const std::optional<int>& v, const char* opt) -> std::optional<Var> {
      if (v) return Var{std::to_string(*v), {}, true, 0};
      return Var{{}, fmt::format("Slurm sets it from {}, which the job does not give", opt), true, 0};
    };
    if (name == "SLURM_NNODES" || name == "SLURM_JOB_NUM_NODES") return slurm(alloc_.nodes ? alloc_.nodes : std::optional<int>(1), "--nodes");
    if (name == "SLURM_NTASKS" || name == "SLURM_NPROCS") {
      std::optional<int> t = alloc_.ntasks;
      if (!t && alloc_.per_node) t = alloc_.nodes.value_or(1) * *alloc_.per_node;
      return slurm(t, "--ntasks or --ntasks-per-node");
    }
    if (name == "SLURM_NTASKS_PER_NODE") return slurm(alloc_.per_node, "--ntasks-per-node");
    if (name == "SLURM_GPUS_PER_NODE") return slurm(alloc_.gpus_per_node, "--gpus-per-node or --gres=gpu:N");
    if (name.starts_with("SLURM_")) return Var{{}, "a Slurm variable of the running job, which ccsim does not know", true, 0};
    if (const char* e = std::getenv(name.c_str())) return Var{e, {}, true, 0};
    return std::nullopt;
  }

 public:
  std::set<std::string> used; // variables a line expanded

 private:
  std::string path_;
  std::map<std::string, Var>& vars_;
  const Alloc& alloc_;
  int line_no_ = 0;
  std::size_t expanded_ = 0; // bytes expanded so far (kMaxExpandedBytes)
  std::vector<Word> pending_;
};

struct TestLine {
  int line = 0;
  std::string text;                 // the line as written (printable)
  std::vector<std::string> argv;    // ccsim's words: [ccsim, launcher..., program, flags..., ccsim's flags]
  std::map<std::string, std::string> env; // the variables exported at that line and the line's own NAME=VALUE
  std::vector<std::string> notes;
};

} // namespace

int sbatch_main(int argc, char** argv) {
  std::vector<TestLine> tests;
  std::string path;
  try {
    // ccsim sbatch [sbatch options] SCRIPT [ccsim flags]
    std::vector<std::string> cli_options, ccsim_flags;
    int i = 2;
    const std::string short_with_value = "AabcCDdeFGJLMmNnopqStwx";
    for (; i < argc; ++i) {
      const std::string w = argv[i];
      if (w == "-h" || w == "--help") {
        std::cout << "ccsim sbatch [-N NODES] [-n TASKS] [--ntasks-per-node N] [--gpus-per-node N] SCRIPT [ccsim flags: --topo ...]\n"
                     "Predicts each nccl-tests line (srun/mpirun ... all_reduce_perf ..., or the program alone) of a Slurm batch\n"
                     "script, in nccl-tests' output format: the #SBATCH allocation, the script's exports and variables are read\n"
                     "as sbatch and the shell would; the flags after SCRIPT are added to every test line.\n";
        return 0;
      }
      if (!w.starts_with("-") || w == "-") break;
      cli_options.push_back(w);
      if (w.size() == 2 && short_with_value.find(w[1]) != std::string::npos && i + 1 < argc) cli_options.push_back(argv[++i]);
      else if (w.starts_with("--") && w.find('=') == std::string::npos &&
               (w == "--nodes" || w == "--ntasks" || w == "--ntasks-per-node" || w == "--gpus-per-node" || w == "--gres") && i + 1 < argc)
        cli_options.push_back(argv[++i]);
    }
    if (i >= argc)
      fail("sbatch: no batch script given: ccsim sbatch [-N 2 ...] job.sbatch --topo MACHINE predicts its nccl-tests lines");
    path = argv[i];
    for (++i; i < argc; ++i) ccsim_flags.emplace_back(argv[i]);

    std::ifstream in(path, std::ios::binary);
    if (!in) fail("sbatch: {}: cannot read the batch script", printable(path, 200));
    note_input(path); // never an output of this run (output_files.hpp)
    std::string text(kMaxScriptBytes + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (in.bad()) fail("sbatch: {}: cannot read the batch script", printable(path, 200));
    if (text.size() > kMaxScriptBytes) fail("sbatch: {}: larger than 1 MiB: not a batch script", printable(path, 200));
    if (const auto nul = text.find('\0'); nul != std::string::npos)
      fail("sbatch: {}: binary data (a NUL byte at byte {}): not a batch script", printable(path, 200), nul);
    const std::string name = printable(path, 120);

    // Lines, a trailing backslash joining the next (numbered by their first line).
    std::vector<std::pair<int, std::string>> lines;
    {
      std::size_t pos = 0;
      int no = 0;
      std::string joined;
      int start = 0;
      while (pos < text.size()) {
        auto nl = text.find('\n', pos);
        if (nl == std::string::npos) nl = text.size();
        std::string l = text.substr(pos, nl - pos);
        pos = nl + 1;
        ++no;
        if (!l.empty() && l.back() == '\r') l.pop_back();
        if (joined.empty()) start = no;
        if (!l.empty() && l.back() == '\\' && !(l.starts_with("#"))) {
          l.pop_back();
          joined += l + " ";
          continue;
        }
        joined += l;
        lines.emplace_back(start, joined);
        joined.clear();
      }
      if (!joined.empty()) lines.emplace_back(start, joined);
    }

    // #SBATCH options before the first command; then the command line's, which win.
    Alloc alloc;
    std::size_t body = 0;
    for (; body < lines.size(); ++body) {
      const auto& [no, l] = lines[body];
      const auto first = l.find_first_not_of(" \t");
      if (first == std::string::npos) continue;
      if (l.starts_with("#SBATCH")) {
        std::vector<std::string> words;
        std::string rest = l.substr(7);
        if (const auto hash = rest.find(" #"); hash != std::string::npos) rest.resize(hash);
        std::size_t k = 0;
        while (k < rest.size()) {
          const auto s = rest.find_first_not_of(" \t", k);
          if (s == std::string::npos) break;
          const auto e = rest.find_first_of(" \t", s);
          std::string word = rest.substr(s, e == std::string::npos ? std::string::npos : e - s);
          if (word.size() >= 2 && (word.front() == '"' || word.front() == '\'') && word.back() == word.front())
            word = word.substr(1, word.size() - 2);
          words.push_back(word);
          k = e == std::string::npos ? rest.size() : e;
        }
        read_sbatch_options(words, fmt::format("sbatch: {} line {}: #SBATCH", name, no), "#SBATCH ", fmt::format(" (line {})", no), alloc);
        continue;
      }
      if (l[first] == '#') continue;
      break;
    }
    if (!cli_options.empty()) {
      Alloc given;
      read_sbatch_options(cli_options, "sbatch", "ccsim sbatch ", "", given);
      for (const auto& [k, v] : given.from) alloc.from[k] = v;
      if (given.nodes) alloc.nodes = given.nodes;
      if (given.ntasks) alloc.ntasks = given.ntasks;
      if (given.per_node) alloc.per_node = given.per_node;
      if (given.gpus_per_node) alloc.gpus_per_node = given.gpus_per_node;
    }
    // The job's tasks (SLURM_NTASKS, mpirun's -np) are nodes x tasks a node: two counts of up to 100000 each would
    // overflow an int, a wrapped count then named as if the script gave it.
    if (alloc.per_node && static_cast<long long>(alloc.nodes.value_or(1)) * *alloc.per_node > 100000)
      fail("sbatch: {}: {}{}: {} tasks, more than the 100000 ccsim predicts", name, alloc.from.count("nodes") ? alloc.from["nodes"] + " x " : "",
           alloc.from["per_node"], static_cast<long long>(alloc.nodes.value_or(1)) * *alloc.per_node);

    std::map<std::string, Var> vars;
    Script sh("sbatch: " + name, vars, alloc);
    std::vector<std::pair<std::string, int>> blocks; // open loops/ifs/functions: keyword, line
    std::size_t env_bytes = 0;                        // the tests' environments, summed (kMaxExpandedBytes)
    for (std::size_t li = body; li < lines.size(); ++li) {
      // Plain names, not a structured binding: the lambdas below capture the line number (clang 14 refuses a captured binding).
      const int no = lines[li].first;
      const auto& l = lines[li].second;
      for (auto& cmd : sh.split(l, no)) {
        auto& ws = cmd.words;
        if (ws.empty()) continue;
        const std::string& head = ws[0].text;
        // Blocks: a test inside one runs as the shell decides (how many times, whether at all).
        if (head == "for" || head == "while" || head == "until" || head == "select" || head == "if" || head == "case" ||
            head == "{" || head.ends_with("()") || head == "function") {
          blocks.emplace_back(head.ends_with("()") || head == "{" || head == "function" ? "a function or { } group" : "'" + head + "'", no);
          continue;
        }
        if ((head == "done" || head == "fi" || head == "esac" || head == "}") && !blocks.empty()) {
          blocks.pop_back();
          continue;
        }
        // Assignments alone set shell variables; export/declare -x/unset change them.
        std::size_t k = 0;
        std::map<std::string, std::string> prefix;
        std::map<std::string, std::string> prefix_unknown;
        while (k < ws.size() && ws[k].assignment) {
          const auto eq = ws[k].text.find('=');
          const std::string var = ws[k].text.substr(0, eq), value = ws[k].text.substr(eq + 1);
          if (!ws[k].unknown.empty()) prefix_unknown[var] = ws[k].unknown;
          else prefix[var] = value;
          ++k;
        }
        auto set_var = [&](const std::string& var, const Word& w, const std::string& value, bool exported) {
          Var v;
          v.value = value;
          v.line = no;
          v.exported = exported || (vars.count(var) && vars[var].exported) || std::getenv(var.c_str()) != nullptr;
          if (!w.unknown.empty()) v.unknown = fmt::format("set on line {} from {}", no, w.unknown);
          if (!blocks.empty() && v.unknown.empty()) v.unknown = fmt::format("set on line {}, inside {} (line {})", no, blocks.back().first, blocks.back().second);
          vars[var] = v;
        };
        if (k == ws.size()) {
          for (const auto& w : ws) {
            const auto eq = w.text.find('=');
            set_var(w.text.substr(0, eq), w, w.text.substr(eq + 1), false);
          }
          continue;
        }
        if (ws[k].text == "export" || (ws[k].text == "declare" && k + 1 < ws.size() && ws[k + 1].text == "-x")) {
          for (std::size_t j = k + 1; j < ws.size(); ++j) {
            const auto& w = ws[j];
            if (w.text.starts_with("-")) continue;
            const auto eq = w.text.find('=');
            if (eq == std::string::npos) {
              if (valid_name(w.text)) {
                if (vars.count(w.text)) vars[w.text].exported = true;
                else if (const char* e = std::getenv(w.text.c_str())) vars[w.text] = Var{e, {}, true, no};
              }
              continue;
            }
            const std::string var = w.text.substr(0, eq);
            if (valid_name(var)) set_var(var, w, w.text.substr(eq + 1), true);
          }
          continue;
        }
        if (ws[k].text == "unset") {
          for (std::size_t j = k + 1; j < ws.size(); ++j) vars.erase(ws[j].text);
          continue;
        }
        // A test: a launcher that starts a *_perf word, or the *_perf program itself (after env/time/exec).
        while (k < ws.size() && (ws[k].text == "time" || ws[k].text == "exec" || ws[k].text == "env" || ws[k].text == "command")) {
          ++k;
          while (k < ws.size() && ws[k].text.find('=') != std::string::npos && valid_name(ws[k].text.substr(0, ws[k].text.find('=')))) {
            const auto eq = ws[k].text.find('=');
            if (!ws[k].unknown.empty()) prefix_unknown[ws[k].text.substr(0, eq)] = ws[k].unknown;
            else prefix[ws[k].text.substr(0, eq)] = ws[k].text.substr(eq + 1);
            ++k;
          }
        }
        while (k < ws.size() && (ws[k].text == "do" || ws[k].text == "then" || ws[k].text == "else" || ws[k].text == "!")) ++k;
        if (k >= ws.size()) continue;
        std::size_t program = ws.size();
        const bool launcher = is_launcher(ws[k].text) && ws[k].unknown.empty();
        if (launcher) {
          for (std::size_t j = k + 1; j < ws.size(); ++j)
            if (names_perf(ws[j].text)) {
              program = j;
              break;
            }
        } else if (names_perf(ws[k].text)) {
          program = k;
        }
        if (program == ws.size()) {
          // A command the shell would run whose name cannot be known, with a test among its words: refused.
          for (const auto& w : ws)
            if (names_perf(w.text) && !ws[k].unknown.empty())
              fail("sbatch: {} line {}: the command's name is {}: ccsim cannot tell what starts the test", name, no, ws[k].unknown);
          // A test inside a string a shell runs (srun bash -c "all_reduce_perf ..."): not a line ccsim reads.
          const std::string shell = base_name(ws[k].text);
          if (launcher || shell == "bash" || shell == "sh" || shell == "eval")
            for (const auto& w : ws)
              if (const auto at = w.text.find("_perf"); at != std::string::npos && w.text.find(' ') != std::string::npos)
                fail("sbatch: {} line {}: a test inside a string a shell runs ('{}'): write it as its own line, "
                     "srun ... all_reduce_perf ...", name, no, printable(w.text, 60));
          continue;
        }
        const std::string shown = printable(l.substr(l.find_first_not_of(" \t")), 160);
        if (!blocks.empty())
          fail("sbatch: {} line {}: a test inside {} (line {}): the shell decides whether and how often it "
               "runs; write the test's line out on its own to predict it",
               name, no, blocks.back().first, blocks.back().second);
        for (std::size_t j = k; j < ws.size(); ++j) {
          if (ws[j].unknown.empty()) continue;
          // The program's folder does not change the prediction: only its name does.
          if (j == program && names_perf(ws[j].text) && ws[j].text.find('?') < ws[j].text.rfind('/')) continue;
          fail("sbatch: {} line {}: {}: ccsim cannot know it{}", name, no, ws[j].unknown,
               ws[j].text == "?" ? std::string() : fmt::format(" (word '{}')", printable(ws[j].text, 60)));
        }
        if (!prefix_unknown.empty())
          fail("sbatch: {} line {}: {}={}: ccsim cannot know it", name, no, prefix_unknown.begin()->first, prefix_unknown.begin()->second);
        TestLine t;
        t.line = no;
        t.text = shown;
        t.argv.push_back(argv[0]);
        std::string inherited;
        if (launcher) {
          t.argv.push_back(ws[k].text);
          // What the launcher inherits from the job when the line gives no count of its own.
          bool has_n = false, has_N = false, has_per = false;
          for (std::size_t j = k + 1; j < program; ++j) {
            const std::string& w = ws[j].text;
            auto is = [&](const char* s, const char* l2) {
              return w == s || w.starts_with(std::string(l2) + "=") || w == l2 ||
                     (std::string_view(s).size() == 2 && w.size() > 2 && w.starts_with(s) && std::isdigit(static_cast<unsigned char>(w[2])));
            };
            has_n = has_n || is("-n", "--ntasks") || w == "-np" || w == "--np" || is("-c", "-c") || w == "-H" || w == "--host" || w == "-host";
            has_N = has_N || is("-N", "--nodes") || w == "--npernode" || w == "-npernode";
            has_per = has_per || w == "--ntasks-per-node" || w.starts_with("--ntasks-per-node=");
          }
          const bool srun = base_name(ws[k].text) == "srun";
          std::vector<std::string> add, from;
          if (srun && !has_n && !has_N && !has_per && alloc.ntasks) {
            add = {"-n", std::to_string(*alloc.ntasks)}, from.push_back(alloc.from["ntasks"]);
          } else if (srun && !has_n) {
            if (!has_N && alloc.nodes) add.insert(add.end(), {"-N", std::to_string(*alloc.nodes)}), from.push_back(alloc.from["nodes"]);
            if (!has_per && alloc.per_node) add.insert(add.end(), {"--ntasks-per-node", std::to_string(*alloc.per_node)}), from.push_back(alloc.from["per_node"]);
          } else if (!srun && !has_n && !has_N) {
            // mpirun under Slurm: one process per task of the allocation.
            std::optional<int> slots = alloc.ntasks;
            if (!slots && alloc.per_node) slots = alloc.nodes.value_or(1) * *alloc.per_node;
            if (!slots && alloc.nodes) slots = *alloc.nodes; // Slurm's default, one task a node
            if (slots) {
              add = {"-np", std::to_string(*slots)};
              for (const char* key : {"ntasks", "nodes", "per_node"})
                if (alloc.from.count(key)) from.push_back(alloc.from[key]);
            }
          }
          t.argv.insert(t.argv.end(), add.begin(), add.end());
          if (!add.empty())
            inherited = fmt::format("; {} {} from the job's {}", base_name(ws[k].text), fmt::join(add, " "), fmt::join(from, ", "));
          for (std::size_t j = k + 1; j < program; ++j) t.argv.push_back(ws[j].text);
          t.argv.push_back(base_name(ws[program].text));
        } else {
          std::string b = base_name(ws[program].text);
          if (b.ends_with("_mpi")) b.resize(b.size() - 4);
          t.argv.push_back(b);
        }
        for (std::size_t j = program + 1; j < ws.size(); ++j) t.argv.push_back(ws[j].text);
        t.argv.insert(t.argv.end(), ccsim_flags.begin(), ccsim_flags.end());
        // The environment: the exported variables at this line, then the line's own NAME=VALUE words.
        std::vector<std::string> not_read;
        for (const auto& [var, v] : vars) {
          if (!v.exported) continue;
          const bool nccl = var.starts_with("NCCL_") || var.starts_with("RCCL_") || var.starts_with("HSA_");
          if (!v.unknown.empty()) {
            if (nccl) fail("sbatch: {} line {}: exports {} ({}): ccsim cannot know it", name, no, var, v.unknown);
            continue;
          }
          t.env[var] = v.value;
          if (!nccl && v.line > 0 && !sh.used.count(var) && !std::getenv(var.c_str()))
            not_read.push_back(fmt::format("{}={} (line {})", var, printable(v.value, 40), v.line));
        }
        for (const auto& [var, value] : prefix) t.env[var] = value;
        // Each test keeps its own copy of the exports: bounded over the script as the expansions are.
        for (const auto& [var, value] : t.env) env_bytes += var.size() + value.size();
        if (env_bytes > kMaxExpandedBytes)
          fail("sbatch: {} line {}: the tests' environments (the script's exports, copied for each test line) add up to "
               "more than 16 MiB of text, which no batch script ccsim reads needs", name, no);
        t.notes.push_back(fmt::format("ccsim: {} line {}: {}{}", name, no, shown, inherited));
        if (alloc.gpus_per_node)
          t.notes.push_back(fmt::format("ccsim: the job asks {} GPU(s) a node: {}; the machine predicted is --topo's", *alloc.gpus_per_node, alloc.from["gpus"]));
        if (!not_read.empty())
          t.notes.push_back(fmt::format("ccsim: {} exports that ccsim does not read (predicted as if unset): {}", name, fmt::join(not_read, ", ")));
        tests.push_back(std::move(t));
      }
    }
    if (tests.empty())
      fail("sbatch: {}: starts no nccl-tests program (no srun, mpirun or bare line running all_reduce_perf, all_gather_perf, ...)", name);
  } catch (const Error& e) {
    std::cerr << "ccsim: " << printable(e.what(), 4000) << "\n";
    return 2;
  }

  // Each test as ccsim would run its pasted line, in the environment the script gives it; all printed, or none.
  std::vector<std::string> saved;
  for (char** e = environ; e && *e; ++e) saved.emplace_back(*e);
  std::string out;
  for (const auto& t : tests) {
    ::clearenv();
    for (const auto& kv : saved) {
      const auto eq = kv.find('=');
      if (eq != std::string::npos) ::setenv(kv.substr(0, eq).c_str(), kv.substr(eq + 1).c_str(), 1);
    }
    for (const auto& [k, v] : t.env) ::setenv(k.c_str(), v.c_str(), 1);
    topology::set_p2p_mode("on");
    topology::clear_p2p_level();
    std::vector<std::string> words = t.argv;
    std::vector<char*> ptrs;
    for (auto& w : words) ptrs.push_back(w.data());
    ptrs.push_back(nullptr);
    const int n = static_cast<int>(words.size());
    std::optional<PerfInvocation> inv;
    try {
      inv = perf_invocation(n, ptrs.data());
    } catch (const Error& e) {
      std::cerr << "ccsim: sbatch: " << printable(path, 120) << " line " << t.line << ": " << printable(e.what(), 4000) << "\n";
      return 2;
    }
    if (!inv) {
      std::cerr << "ccsim: sbatch: " << printable(path, 120) << " line " << t.line << ": starts no nccl-tests program ccsim predicts\n";
      return 2;
    }
    inv->context = fmt::format("sbatch: {} line {}", printable(path, 120), t.line);
    inv->notes = t.notes;
    inv->out = &out;
    if (const int rc = perf_main(*inv, n, ptrs.data()); rc != 0) return rc;
  }
  write_stdout(out);
  return 0;
}

} // namespace ccsim::cli
