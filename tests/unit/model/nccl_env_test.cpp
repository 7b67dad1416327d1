// The NCCL settings an nccl-tests run takes from its environment (model::nccl::nccl_env_flags), read as NCCL reads
// them (v2.29.2-1): parseList for NCCL_ALGO / NCCL_PROTO (src/graph/tuning.cc: ';' entries, the first for every
// collective, "prefix:list" for one, case-insensitive names, a leading ^ excludes, an unknown name fails the run),
// ncclLoadParam's strtoll for NCCL_NVLS_ENABLE / NCCL_COLLNET_ENABLE (no digits read as 0), ncclGetLevel for
// NCCL_P2P_DISABLE (1 disables, and NCCL_P2P_LEVEL is then not read). Expected values worked from those rules by hand.
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "sim/core/error.hpp"
#include "sim/model/nccl/nccl_env.hpp"

using namespace ccsim;
namespace nccl = model::nccl;
using schedule::Op;

namespace {
nccl::EnvFlags env_flags_of(std::map<std::string, std::string> env, Op op = Op::AllReduce) { return nccl::nccl_env_flags(env, op); }

std::string env_refusal(std::map<std::string, std::string> env, Op op = Op::AllReduce) {
  try {
    nccl::nccl_env_flags(env, op);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
} // namespace

TEST_CASE("NCCL_ALGO of one algorithm, in NCCL's spelling or any case, is --nccl-algo") {
  CHECK(env_flags_of({{"NCCL_ALGO", "Tree"}}).nccl_algo == "tree");
  CHECK(env_flags_of({{"NCCL_ALGO", "RING"}}).nccl_algo == "ring");
  CHECK(env_flags_of({{"NCCL_ALGO", "nvls"}}).nccl_algo == "nvls");
  CHECK(env_flags_of({{"NCCL_ALGO", "CollNetDirect"}}).nccl_algo == "collnet_direct");
  // ^ excludes: everything but Ring, CollNet*, NVLS*, PAT is Tree (PAT is never modelled, so its bit does not count).
  CHECK(env_flags_of({{"NCCL_ALGO", "^Ring,CollNetDirect,CollNetChain,NVLS,NVLSTree"}}).nccl_algo == "tree");
  const auto f = env_flags_of({{"NCCL_ALGO", "Tree"}});
  REQUIRE(f.read.size() == 1);
  CHECK(f.read[0].first == "NCCL_ALGO");
  CHECK(f.read[0].second == "--nccl-algo tree");
}

TEST_CASE("NCCL_ALGO lists: Ring and Tree with NVLS or CollNet turned off as a family") {
  const auto rt = env_flags_of({{"NCCL_ALGO", "Ring,Tree"}});
  CHECK(!rt.nccl_algo);
  CHECK(rt.nvls == "off");
  CHECK(rt.collnet == "off");
  const auto no_nvls = env_flags_of({{"NCCL_ALGO", "^NVLS,NVLSTree"}});
  CHECK(!no_nvls.nccl_algo);
  CHECK(no_nvls.nvls == "off");
  CHECK(!no_nvls.collnet);
  // Refused where ccsim cannot say it: a pair without Tree, nothing left, an unknown name.
  CHECK(env_refusal({{"NCCL_ALGO", "Ring,NVLS"}}).starts_with("environment NCCL_ALGO=Ring,NVLS: enables Ring,NVLS for AllReduce;"));
  // ^NVLS leaves NVLSTree in, which only runs on several nodes: --nvls off, saying so.
  const auto caret_nvls = env_flags_of({{"NCCL_ALGO", "^NVLS"}});
  CHECK(caret_nvls.nvls == "off");
  REQUIRE(caret_nvls.read.size() == 1);
  CHECK(caret_nvls.read[0].second.find("NVLSTree left in is not modelled") != std::string::npos);
  CHECK(env_refusal({{"NCCL_ALGO", "PAT"}}).starts_with("environment NCCL_ALGO=PAT: leaves no algorithm ccsim models for AllReduce"));
  CHECK(env_refusal({{"NCCL_ALGO", "Rings"}}) ==
        "environment NCCL_ALGO=Rings: unrecognized name 'Rings' (NCCL's names: Tree, Ring, CollNetDirect, CollNetChain, NVLS, "
        "NVLSTree, PAT; NCCL refuses it too)");
  // NCCL does not trim: "Ring, Tree" has the name " Tree", which it refuses.
  CHECK(env_refusal({{"NCCL_ALGO", "Ring, Tree"}}).find("unrecognized name ' Tree'") != std::string::npos);
}

TEST_CASE("NCCL_ALGO and NCCL_PROTO per collective: the entry for the test's collective wins over the first") {
  // "Ring;allreduce:Tree": Ring for every collective, then Tree for AllReduce.
  CHECK(env_flags_of({{"NCCL_ALGO", "Ring;allreduce:Tree"}}).nccl_algo == "tree");
  CHECK(env_flags_of({{"NCCL_ALGO", "Ring;allreduce:Tree"}}, Op::AllGather).nccl_algo == "ring");
  CHECK(env_flags_of({{"NCCL_PROTO", "LL,Simple;allreduce:^LL"}}).nccl_proto == "LL128,Simple");
  CHECK(env_flags_of({{"NCCL_PROTO", "LL,Simple;allreduce:^LL"}}, Op::Broadcast).nccl_proto == "LL,Simple");
  CHECK(env_refusal({{"NCCL_ALGO", "Ring;Tree"}}).starts_with("environment NCCL_ALGO=Ring;Tree: every entry after the first needs a collective prefix"));
  CHECK(env_refusal({{"NCCL_ALGO", "alltoall:Ring"}}).starts_with("environment NCCL_ALGO=alltoall:Ring: unrecognized prefix 'alltoall'"));
  // alltoall is NCCL's point-to-point path: NCCL_ALGO is checked, then said not to apply.
  const auto a2a = env_flags_of({{"NCCL_ALGO", "Tree"}}, Op::AllToAll);
  CHECK(!a2a.nccl_algo);
  REQUIRE(a2a.read.size() == 1);
  CHECK(a2a.read[0].second == "not used (NCCL runs alltoall on its point-to-point path)");
}

TEST_CASE("NCCL_PROTO: a restriction is --nccl-proto, every protocol is none, none is refused") {
  CHECK(env_flags_of({{"NCCL_PROTO", "simple"}}).nccl_proto == "Simple");
  CHECK(env_flags_of({{"NCCL_PROTO", "^LL128"}}).nccl_proto == "LL,Simple");
  CHECK(!env_flags_of({{"NCCL_PROTO", "LL,LL128,Simple"}}).nccl_proto);
  CHECK(env_refusal({{"NCCL_PROTO", "^LL,LL128,Simple"}}) == "environment NCCL_PROTO=^LL,LL128,Simple: leaves no protocol for AllReduce (LL, LL128, Simple)");
}

TEST_CASE("NCCL_NVLS_ENABLE, NCCL_COLLNET_ENABLE and RCCL_MSCCL_ENABLE read as NCCL_PARAMs") {
  CHECK(env_flags_of({{"NCCL_NVLS_ENABLE", "0"}}).nvls == "off");
  CHECK(env_flags_of({{"NCCL_NVLS_ENABLE", "off"}}).nvls == "off"); // strtoll reads no digits: 0
  CHECK(!env_flags_of({{"NCCL_NVLS_ENABLE", "1"}}).nvls);
  CHECK(!env_flags_of({{"NCCL_NVLS_ENABLE", "2"}}).nvls);
  CHECK(env_flags_of({{"NCCL_COLLNET_ENABLE", "0"}}).collnet == "off");
  CHECK(!env_flags_of({{"NCCL_COLLNET_ENABLE", "1"}}).collnet);
  CHECK(env_flags_of({{"RCCL_MSCCL_ENABLE", "0"}}).msccl == "off");
}

TEST_CASE("NCCL_P2P_DISABLE=1 comes before NCCL_P2P_LEVEL, which NCCL ignores when it cannot read it") {
  const auto off = env_flags_of({{"NCCL_P2P_DISABLE", "1"}, {"NCCL_P2P_LEVEL", "SYS"}});
  CHECK(off.p2p == "off");
  CHECK(!off.p2p_level);
  CHECK(!env_flags_of({{"NCCL_P2P_DISABLE", "0"}}).p2p);
  CHECK(env_flags_of({{"NCCL_P2P_LEVEL", "PHB"}}).p2p_level == "PHB");
  CHECK(env_flags_of({{"NCCL_P2P_LEVEL", "2"}}).p2p_level == "2");
  const auto bad = env_flags_of({{"NCCL_P2P_LEVEL", "near"}});
  CHECK(!bad.p2p_level);
  REQUIRE(bad.read.size() == 1);
  CHECK(bad.read[0].second.starts_with("not a level NCCL reads"));
}

TEST_CASE("Each flag the environment sets names the variable that set it") {
  const auto f = env_flags_of({{"NCCL_ALGO", "^NVLS,NVLSTree,CollNetDirect,CollNetChain"}, {"NCCL_PROTO", "Simple"},
                               {"RCCL_MSCCL_ENABLE", "0"}, {"NCCL_P2P_LEVEL", "PHB"}});
  const std::map<std::string, std::string> want{{"--nvls", "NCCL_ALGO"}, {"--collnet", "NCCL_ALGO"}, {"--nccl-proto", "NCCL_PROTO"},
                                                {"--msccl", "RCCL_MSCCL_ENABLE"}, {"--p2p-level", "NCCL_P2P_LEVEL"}};
  CHECK(f.source == want);
  // NCCL_ALGO leaves NVLS out; NCCL_NVLS_ENABLE=1 turns nothing off, so --nvls still comes from NCCL_ALGO.
  CHECK(env_flags_of({{"NCCL_ALGO", "^NVLS"}, {"NCCL_NVLS_ENABLE", "1"}}).source.at("--nvls") == "NCCL_ALGO");
  // Both turn it off: the later one read (NCCL_NVLS_ENABLE) is named.
  CHECK(env_flags_of({{"NCCL_ALGO", "^NVLS"}, {"NCCL_NVLS_ENABLE", "0"}}).source.at("--nvls") == "NCCL_NVLS_ENABLE");
  const auto single = env_flags_of({{"NCCL_ALGO", "Tree"}, {"NCCL_COLLNET_ENABLE", "0"}, {"NCCL_P2P_DISABLE", "1"}});
  CHECK(single.source == std::map<std::string, std::string>{
                             {"--nccl-algo", "NCCL_ALGO"}, {"--collnet", "NCCL_COLLNET_ENABLE"}, {"--p2p", "NCCL_P2P_DISABLE"}});
  CHECK(env_flags_of({{"NCCL_NVLS_ENABLE", "1"}, {"NCCL_P2P_DISABLE", "0"}}).source.empty());
}
