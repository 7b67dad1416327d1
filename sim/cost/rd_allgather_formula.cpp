// Thakur's recursive-doubling allgather (sim/schedule/algorithms/rd_allgather_plan.hpp) as the engine
// runs it: a rank's step begins when its previous one ends; a transfer starts once both ranks have begun
// the step that holds it (rendezvous) and costs alpha + bytes*beta; a step ends when its transfers are
// done. Every step sends at most one message and receives at most one, so no link carries two at once
// and the plan alone fixes the time: the longest chain of messages through it.
// p a power of two: one chain, lg p alpha + (p-1)/p n beta. Otherwise the fix-up sub-rounds make
// chains of different shape (more, smaller messages against fewer, larger ones), so every chain no
// other outlasts for all alpha and beta is kept and the time is the longest of them.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "sim/cost/formulas_algos2.hpp"
#include "sim/schedule/algorithms/rd_allgather_plan.hpp"

namespace ccsim::cost {
namespace {

// A chain as how many messages of each size it crosses; sizes are indexed largest first, so chain A
// outlasts chain B for every alpha and beta when, for every k, A has at least as many messages of
// the k largest sizes as B (pair each of B's messages with one of A's at least as large).
struct Chain {
  std::vector<std::uint32_t> at_least; // [k]: messages of size >= sizes[k]
  std::vector<std::uint32_t> count;    // [k]: messages of size == sizes[k]
};

bool outlasts(const Chain& a, const Chain& b) {
  for (std::size_t k = 0; k < a.at_least.size(); ++k)
    if (a.at_least[k] < b.at_least[k]) return false;
  return true;
}

void add(std::vector<Chain>& set, const Chain& c) {
  for (const auto& d : set)
    if (outlasts(d, c)) return;
  std::erase_if(set, [&](const Chain& d) { return outlasts(c, d); });
  set.push_back(c);
}

void add_extended(std::vector<Chain>& to, const std::vector<Chain>& from, std::size_t k) {
  for (Chain c : from) {
    ++c.count[k];
    for (std::size_t j = k; j < c.at_least.size(); ++j) ++c.at_least[j];
    add(to, c);
  }
}

std::uint64_t messages(const Chain& c) { return c.at_least.empty() ? 0 : c.at_least.back(); }

} // namespace

Formula recursive_doubling_allgather(const schedule::CollArgs& a, Bytes elt) {
  const int p = a.ranks, rounds = schedule::ceil_lg(p);
  const bool pof2 = (p & (p - 1)) == 0;
  Formula out;
  out.gamma = "0";
  if (p < 2) return out.alpha = "lg p", out.beta = "(p-1)/p", out;
  std::vector<std::vector<schedule::RdGatherStep>> plans;
  std::vector<int> sizes; // in blocks, largest first
  for (int r = 0; r < p; ++r) {
    plans.push_back(schedule::rd_gather_plan(p, r));
    for (const auto& s : plans.back()) sizes.push_back(std::max(s.send_n, s.recv_n)), sizes.push_back(std::min(s.send_n, s.recv_n));
  }
  std::sort(sizes.begin(), sizes.end(), std::greater<>());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  std::map<int, std::size_t> kind;
  for (std::size_t k = 0; k < sizes.size(); ++k) kind[sizes[k]] = k;
  const Chain empty{std::vector<std::uint32_t>(sizes.size()), std::vector<std::uint32_t>(sizes.size())};
  // begun[x]: chains ending where rank x begins its next step; next[x]: index of that step in its plan.
  std::vector<std::vector<Chain>> begun(static_cast<std::size_t>(p), {empty}), done(static_cast<std::size_t>(p));
  std::vector<std::size_t> next(static_cast<std::size_t>(p), 0);
  auto at = [&](int x, int i, int sub) -> const schedule::RdGatherStep* {
    const auto& pl = plans[static_cast<std::size_t>(x)];
    const auto n = next[static_cast<std::size_t>(x)];
    return n < pl.size() && pl[n].round == i && pl[n].sub == sub ? &pl[n] : nullptr;
  };
  for (int i = 0; i < rounds; ++i)
    for (int sub = -1; sub < i; ++sub) {
      const int j = sub < 0 ? -1 : i - 1 - sub; // fix-ups run from distance 2^(i-1) down to 1
      for (int x = 0; x < p; ++x) {
        const auto* st = at(x, i, j);
        if (!st) continue;
        auto& d = done[static_cast<std::size_t>(x)];
        d.clear();
        for (const auto& [peer, blocks] : {std::pair{st->send_to, st->send_n}, std::pair{st->recv_from, st->recv_n}}) {
          if (peer < 0) continue;
          const std::size_t k = kind.at(blocks);
          add_extended(d, begun[static_cast<std::size_t>(x)], k);
          add_extended(d, begun[static_cast<std::size_t>(peer)], k);
        }
      }
      for (int x = 0; x < p; ++x)
        if (at(x, i, j)) std::swap(begun[static_cast<std::size_t>(x)], done[static_cast<std::size_t>(x)]), ++next[static_cast<std::size_t>(x)];
    }
  std::vector<Chain> last;
  for (const auto& b : begun)
    for (const auto& c : b) add(last, c);
  std::stable_sort(last.begin(), last.end(), [](const Chain& x, const Chain& y) { return messages(x) > messages(y); });
  auto terms = [&](const Chain& c) {
    std::vector<Term> t;
    for (std::size_t k = 0; k < sizes.size(); ++k)
      if (c.count[k] > 0)
        t.push_back({c.count[k], static_cast<Bytes>(sizes[k]) * a.count * elt, 0, sizes[k] == 1 ? "1 block" : fmt::format("{} blocks", sizes[k])});
    return t;
  };
  out.terms = terms(last.front());
  for (std::size_t c = 1; c < last.size(); ++c) out.alternatives.push_back(terms(last[c]));
  if (pof2) {
    out.alpha = "lg p", out.beta = "(p-1)/p";
    return out;
  }
  std::uint64_t blocks = 0;
  for (std::size_t k = 0; k < sizes.size(); ++k) blocks += last.front().count[k] * static_cast<std::uint64_t>(sizes[k]);
  out.alpha = fmt::format("{}", messages(last.front()));
  out.beta = fmt::format("{}/p", blocks);
  out.note = fmt::format("p = {} is not a power of two: Thakur's fix-up sub-rounds pass the blocks a short partner "
                         "subtree lacked down a binomial tree. Every rank receives exactly p-1 blocks in at most "
                         "2ceil(lg p)-1 = {} steps (the textbook's lg p alpha + (p-1)/p n beta counts that), but a rank's "
                         "exchange waits for its partner's fix-ups, so the longest chain crosses {} messages and {} blocks "
                         "(this p's exact coefficients){}",
                         p, 2 * rounds - 1, messages(last.front()), blocks,
                         last.size() > 1 ? fmt::format("; {} other chain(s) take over for other alpha/beta", last.size() - 1) : "");
  return out;
}

} // namespace ccsim::cost
