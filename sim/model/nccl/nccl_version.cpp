#include "sim/model/nccl/nccl_version.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/topology/gpu_catalogue.hpp"

namespace ccsim::model::nccl {

namespace {
// The number at the front of `s` (at most 4 digits), consumed; nullopt without one.
std::optional<int> take_number(std::string_view& s) {
  std::size_t n = 0;
  while (n < s.size() && std::isdigit(static_cast<unsigned char>(s[n]))) ++n;
  if (n == 0 || n > 4) return std::nullopt;
  int v = 0;
  for (std::size_t i = 0; i < n; ++i) v = v * 10 + (s[i] - '0');
  s.remove_prefix(n);
  return v;
}

bool starts_with_ci(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != std::tolower(static_cast<unsigned char>(prefix[i]))) return false;
  return true;
}

std::string_view trim_front(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '#')) s.remove_prefix(1);
  return s;
}

// The release at the front of `value` ("2.6.4 (...)", "NCCL 2.21.5, ...", "v2.4.8"), as written.
std::optional<std::string> release_at(std::string_view value) {
  value = trim_front(value);
  if (starts_with_ci(value, "NCCL ")) value.remove_prefix(5);
  if (!parse_nccl_version(value)) return std::nullopt;
  std::size_t n = 0;
  while (n < value.size() && n < 32 && (std::isalnum(static_cast<unsigned char>(value[n])) || value[n] == '.' || value[n] == '+' || value[n] == '-')) ++n;
  return std::string(value.substr(0, n));
}

// The release in nccl-tests' "nccl-library=22903" (src/util.cu writeDeviceReport since 2025-10: ncclGetVersion's
// code) or rccl-tests' "rccl-library=22707": nccl.h NCCL_VERSION(X,Y,Z) is X*1000 + Y*100 + Z up to 2.8 and
// X*10000 + Y*100 + Z from 2.9 on; RCCL numbers its releases as the NCCL release it is built on. The library,
// not the headers the test was compiled against, is what ran.
std::optional<std::string> library_code_at(std::string_view l) {
  for (std::string_view key : {"nccl-library=", "rccl-library="}) {
    const auto at = l.find(key);
    if (at == std::string_view::npos) continue;
    std::string_view rest = l.substr(at + key.size());
    std::size_t n = 0;
    while (n < rest.size() && n < 7 && std::isdigit(static_cast<unsigned char>(rest[n]))) ++n;
    if (n < 4 || n > 6 || (n < rest.size() && std::isalnum(static_cast<unsigned char>(rest[n])))) continue;
    int code = 0;
    for (std::size_t i = 0; i < n; ++i) code = code * 10 + (rest[i] - '0');
    const bool wide = code >= 10000; // 2.9 and later
    const int major = wide ? code / 10000 : code / 1000, minor = wide ? code / 100 % 100 : code / 100 % 10;
    if (major == 0) continue;
    return fmt::format("{}.{}.{}", major, minor, code % 100);
  }
  return std::nullopt;
}
} // namespace

std::optional<NcclVersion> parse_nccl_version(std::string_view s) {
  if (!s.empty() && (s.front() == 'v' || s.front() == 'V')) s.remove_prefix(1);
  NcclVersion v{};
  const auto major = take_number(s);
  if (!major || s.empty() || s.front() != '.') return std::nullopt;
  s.remove_prefix(1);
  const auto minor = take_number(s);
  if (!minor) return std::nullopt;
  v[0] = *major;
  v[1] = *minor;
  if (!s.empty() && s.front() == '.') {
    s.remove_prefix(1);
    const auto patch = take_number(s);
    if (!patch) return std::nullopt;
    v[2] = *patch;
  }
  // What may follow a release: a build suffix (+cuda12.8, -1), a separator, nothing. "2.4.x" is a guess.
  if (!s.empty() && (std::isalnum(static_cast<unsigned char>(s.front())) || s.front() == '.')) return std::nullopt;
  return v;
}

std::optional<NcclVersion> nccl_version_from(const std::string& s, const char* flag) {
  if (s.empty()) return std::nullopt;
  const auto v = parse_nccl_version(s);
  if (!v) fail("{}: '{}' is not an NCCL release (e.g. 2.4.8, 2.27.3)", flag, s.substr(0, 40));
  return v;
}

std::optional<std::string> nccl_version_in(const std::vector<std::string>& lines) {
  for (const auto& line : lines) {
    std::string_view l = trim_front(line);
    if (const auto at = l.find("NCCL version "); at != std::string_view::npos)
      if (auto r = release_at(l.substr(at + 13))) return r;
    if (starts_with_ci(l, "nccl version:"))
      if (auto r = release_at(l.substr(13))) return r;
    // RCCL numbers its releases as the NCCL release it is built on: a header's "rccl version: 2.27.7-HEAD:0d2c4fd"
    // and rccl-tests' own "RCCL version : 2.27.7-HEAD:0d2c4fd" line.
    if (starts_with_ci(l, "rccl version")) {
      std::string_view v = l.substr(12);
      while (!v.empty() && (v.front() == ' ' || v.front() == ':')) v.remove_prefix(1);
      // A ROCm package's name and version: "RCCL 2.20.5.60201-112~20.04" is RCCL 2.20.5 built for ROCm 6.2.1 (60201).
      if (starts_with_ci(v, "RCCL ")) v.remove_prefix(5);
      if (auto r = release_at(v)) return r;
      std::string_view word = v.substr(0, std::min(v.find_first_of(" \t("), v.size()));
      std::size_t dots = 0, third = std::string_view::npos;
      for (std::size_t i = 0; i < word.size() && third == std::string_view::npos; ++i)
        if (word[i] == '.' && ++dots == 3) third = i;
      if (third != std::string_view::npos && third + 1 < word.size() && std::isdigit(static_cast<unsigned char>(word[third + 1])))
        if (auto r = release_at(word.substr(0, third))) return r;
    }
    if (auto r = library_code_at(l)) return r;
    if (starts_with_ci(l, "software:")) {
      const auto at = l.find("NCCL ");
      if (at != std::string_view::npos)
        if (auto r = release_at(l.substr(at))) return r;
    }
  }
  return std::nullopt;
}

int compute_capability(const topology::Topology& t, Arch arch) {
  if (!t.gpu_kind.empty()) {
    const auto sm = topology::gpu_kind(t.gpu_kind, "topology " + t.name).sm;
    std::string_view s = sm;
    const auto v = take_number(s);
    return v && s.empty() ? *v : 0;
  }
  constexpr int kFirst[kArchs] = {60, 70, 80, 90, 100}; // pascal .. blackwell
  return kFirst[static_cast<int>(arch)];
}

bool ll128_in_release(const Tables& tab, const std::optional<NcclVersion>& v, int sm, Arch arch) {
  if (tab.ll128_by_version.empty()) return true;
  const Tables::Ll128Rule* rule = v ? nullptr : &tab.ll128_by_version.back();
  for (const auto& r : tab.ll128_by_version)
    if (v && r.from <= *v) rule = &r;
  if (!rule) return false; // before NCCL had LL128
  if (rule->any_sm) return sm == 0 ? arch >= tab.ll128_min_arch : sm >= 70;
  return std::find(rule->sms.begin(), rule->sms.end(), sm) != rule->sms.end();
}

topology::PathClass ll128_type_inter_limit(const std::optional<NcclVersion>& v, int sm) {
  using topology::PathClass;
  if (v && *v < kLl128PxbFrom) return PathClass::Pix;
  if ((!v || *v >= kLl128PxnSm90From) && sm >= 90) return PathClass::Pxn;
  return PathClass::Pxb;
}

topology::NicPathRules nic_path_rules(const std::optional<NcclVersion>& v) {
  topology::NicPathRules r;
  r.pxn = !v || *v >= kPxnFrom;
  r.p2c = !v || *v >= kP2cFrom;
  r.pxn_c2c = !v || *v >= kPxnC2cFrom;
  return r;
}

bool p2p_ll_in_release(const std::optional<NcclVersion>& v) { return !v || *v >= kP2pLLFrom; }

bool p2p_ll_per_peer_threshold(const std::optional<NcclVersion>& v) {
  return v && *v >= kP2pLLPerPeerFrom && *v < kP2pLLSplitFrom;
}

const Tables::Nvls::TreeTunerRule* nvls_tree_tuner_rule(const Tables& tab, const std::optional<NcclVersion>& v) {
  if (!v || !tab.nvls) return nullptr;
  for (const auto& r : tab.nvls->tree_tuner_by_release)
    if (r.from <= *v && *v < r.until) return &r;
  return nullptr;
}

const Caps* ring_ll128_tuner_caps(const Tables& tab, const std::optional<NcclVersion>& v) {
  if (!v) return nullptr;
  for (const auto& r : tab.ring_ll128_tuner_by_release)
    if (r.from <= *v && *v < r.until) return &r.caps;
  return nullptr;
}

} // namespace ccsim::model::nccl
